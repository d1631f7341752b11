#include "sim/lab/lab_world.hpp"

#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/parse_number.hpp"
#include "core/text/base64.hpp"
#include "sim/lab/lab_assets.hpp"
#include "sim/lab/yaml_json.hpp"

namespace kp::lab {

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

constexpr const char* pve_token_id = "kubernetes@pve!karpenter";
constexpr const char* pve_token_secret = "5e1f0a7c-0d1e-4c2a-9b3f-6a7d8e9f0a1b";

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string kube_error(const std::string& what, const http_reply& r) {
  std::string message = r.body;
  auto v = r.json();
  if (v.is_object() && v.as_object().contains("message") && v.at("message").is_string())
    message = std::string(v.at("message").as_string());
  return what + ": HTTP " + std::to_string(r.status) + " " + message;
}

// The lab's NodePool, ProxmoxNodeClass and template reference (DESIGN.md section 6): the
// minimal provider path with the built-in cloud-init on a CD-ROM.
std::string default_objects_yaml(const lab_options& o) {
  std::string disruption =
      o.consolidate_after.empty()
          ? "    consolidateAfter: Never\n"
          : "    consolidationPolicy: WhenEmpty\n    consolidateAfter: " + o.consolidate_after +
                "\n";
  return "apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1\n"
         "kind: ProxmoxUnmanagedTemplate\n"
         "metadata: {name: k8s-template}\n"
         "spec: {templateName: k8s-template}\n"
         "---\n" +
         node_class_yaml(o.clone_mode.empty() ? std::string()
                                              : "  cloneMode: " + o.clone_mode + "\n") +
         "---\n"
         "apiVersion: karpenter.sh/v1\n"
         "kind: NodePool\n"
         "metadata: {name: default}\n"
         "spec:\n"
         "  limits: {cpu: \"" +
         o.nodepool_cpu_limit + "\"" +
         (o.nodepool_node_limit.empty() ? "" : ", nodes: \"" + o.nodepool_node_limit + "\"") +
         "}\n"
         "  template:\n"
         "    spec:\n"
         "      nodeClassRef: {group: karpenter.proxmox.sinextra.dev, kind: ProxmoxNodeClass, "
         "name: default}\n"
         "      requirements:\n"
         "        - {key: kubernetes.io/arch, operator: In, values: [amd64]}\n"
         "        - {key: kubernetes.io/os, operator: In, values: [linux]}\n"
         "  disruption:\n" +
         disruption + "    budgets: [{nodes: \"100%\"}]\n";
}

}  // namespace

result<kubeconfig_credentials> read_kubeconfig(const std::string& path) {
  try {
    auto root = YAML::LoadFile(path);
    kubeconfig_credentials c;
    c.server = root["clusters"][0]["cluster"]["server"].as<std::string>();
    c.ca_pem = text::base64_decode(
                   root["clusters"][0]["cluster"]["certificate-authority-data"].as<std::string>())
                   .value_or("");
    c.token = root["users"][0]["user"]["token"].as<std::string>();
    return c;
  } catch (const std::exception& e) {
    return make_error("invalid_kubeconfig", path + ": " + e.what());
  }
}

std::string node_class_yaml(const std::string& more_spec) {
  return "apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1\n"
         "kind: ProxmoxNodeClass\n"
         "metadata: {name: default}\n"
         "spec:\n"
         "  tags: [lab]\n"
         "  instanceTemplateRef: {kind: ProxmoxUnmanagedTemplate, name: k8s-template}\n"
         "  metadataOptions: {type: cdrom}\n" +
         more_spec;
}

std::string uniform_topology_yaml(int hosts, int cpus, int memory_gib, bool zero_durations) {
  // Two sockets, one thread per core, one NUMA node per socket.
  int half = cpus / 2;
  std::string y = "cluster: {name: pve-lab, version: 8.4.1, region: pve-sim}\nhosts:\n";
  for (int h = 1; h <= hosts; ++h) {
    y += "  - name: pve" + std::to_string(h) +
         "\n    sockets: 2\n    cores: " + std::to_string(half) +
         "\n    threads: 1\n    memory: " + std::to_string(memory_gib) +
         "Gi\n    numa:\n      - {id: 0, cpus: \"0-" + std::to_string(half - 1) +
         "\", memory: " + std::to_string(memory_gib / 2) + "Gi}\n      - {id: 1, cpus: \"" +
         std::to_string(half) + "-" + std::to_string(cpus - 1) +
         "\", memory: " + std::to_string(memory_gib / 2) +
         "Gi}\n    storages: [local-lvm, local]\n    bridges:\n      - {name: vmbr0, cidr: "
         "192.168." +
         std::to_string(10 + h / 200) + "." + std::to_string(10 + h % 200) +
         "/24, gateway: 192.168.10.1}\n";
  }
  y += "storages:\n"
       "  - {name: local-lvm, type: lvmthin, content: [images, rootdir], shared: false, size: "
       "64Ti}\n"
       "  - {name: local, type: dir, content: [iso, import, vztmpl, snippets, backup], shared: "
       "false, size: 4Ti}\nvms:\n";
  for (int h = 1; h <= hosts; ++h) {
    auto id = std::to_string(9000 + h);
    y += "  - vmid: " + id + "\n    node: pve" + std::to_string(h) +
         "\n    config:\n      name: k8s-template\n      template: \"1\"\n      ostype: l26\n"
         "      sockets: \"1\"\n      cores: \"2\"\n      memory: \"2048\"\n      cpu: host\n"
         "      scsihw: virtio-scsi-single\n      scsi0: local-lvm:base-" +
         id +
         "-disk-0,iothread=1,size=10G\n      net0: virtio,bridge=vmbr0,firewall=1\n"
         "      boot: order=scsi0\n      agent: \"1\"\n      ipconfig0: ip=dhcp\n"
         "      serial0: socket\n";
  }
  y += "users:\n  - {userid: root@pam, password: pve-sim-root}\n  - userid: kubernetes@pve\n"
       "    tokens:\n      - {id: karpenter, secret: " +
       std::string(pve_token_secret) +
       "}\npools:\n  - {id: kubernetes, comment: Kubernetes nodes}\n";
  if (zero_durations) {
    y += "durations: {qmclone: 0, qmcreate: 0, qmtemplate: 0, qmconfig: 0, resize: 0, "
         "qmstart: 0, qmstop: 0, qmshutdown: 0, qmdestroy: 0, imgcopy: 0, imgdel: 0, boot: 0, "
         "agent: 0, rrd_lag: 0, csr_poll: 20}\n";
  }
  return y;
}

lab_world::lab_world(lab_options options) : options_(std::move(options)) {}

lab_world::~lab_world() {
  // The controllers first: they would otherwise log errors about simulators going away.
  for (std::size_t i = 0; i < controllers_.size(); ++i) stop_controller(i);
  kube_.reset();
  pve_.reset();
  pve_sim_.stop();
  kube_sim_.stop();
  if (own_work_dir_ && !options_.keep_work_dir) {
    std::error_code ec;
    fs::remove_all(work_dir_, ec);
  }
}

status lab_world::start() {
  if (options_.work_dir.empty()) {
    std::string pattern = (fs::temp_directory_path() / "kp-lab-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) return make_error("io", "mkdtemp failed");
    work_dir_ = pattern;
    own_work_dir_ = true;
  } else {
    work_dir_ = options_.work_dir;
    std::error_code ec;
    fs::create_directories(work_dir_, ec);
    if (ec) return make_error("io", "cannot create " + work_dir_ + ": " + ec.message());
  }
  if (auto s = start_kube_sim(); !s) return s;
  if (auto s = start_pve_sim(); !s) return s;
  if (auto s = write_clusters_file(); !s) return s;
  auto existing = vms(false);
  if (!existing) return existing.error();
  for (const auto& vm : *existing) initial_vmids_.insert(vm.vmid);
  if (options_.apply_default_objects) return apply_default_objects();
  return {};
}

status lab_world::start_kube_sim() {
  kubeconfig_path_ = work_dir_ + "/kubeconfig";
  std::vector<std::string> argv{options_.bin_dir + "/kube-sim", "--listen", "127.0.0.1:0",
                                "--kubeconfig-out", kubeconfig_path_};
  argv.insert(argv.end(), options_.kube_sim_args.begin(), options_.kube_sim_args.end());
  if (auto s = kube_sim_.start(argv, {}, work_dir_ + "/kube-sim.log"); !s) return s;
  auto line = kube_sim_.wait_for_line(
      [](const std::string& l) { return l.rfind("https://", 0) == 0; }, 30s);
  if (!line) return make_error(line.error().code, "kube-sim: " + line.error().message);
  auto creds = read_kubeconfig(kubeconfig_path_);
  if (!creds) return creds.error();
  kube_url_ = creds->server;
  kube_ = std::make_unique<http_endpoint>(kube_url_, creds->ca_pem, "Bearer " + creds->token);
  return {};
}

status lab_world::start_pve_sim() {
  std::string ca = work_dir_ + "/pve-ca.pem";
  std::vector<std::string> argv{
      options_.bin_dir + "/pve-sim", "--listen", "127.0.0.1:0", "--ca-out", ca, "--data-dir",
      work_dir_ + "/pve-data"};
  if (!options_.topology_yaml.empty()) {
    std::string topo = work_dir_ + "/topology.yaml";
    std::ofstream(topo) << options_.topology_yaml;
    argv.insert(argv.end(), {"--topology", topo});
  }
  argv.insert(argv.end(), options_.pve_sim_args.begin(), options_.pve_sim_args.end());
  if (auto s = pve_sim_.start(argv, {}, work_dir_ + "/pve-sim.log"); !s) return s;
  auto line =
      pve_sim_.wait_for_line([](const std::string& l) { return l.rfind("https://", 0) == 0; }, 30s);
  if (!line) return make_error(line.error().code, "pve-sim: " + line.error().message);
  pve_url_ = *line;
  pve_ = std::make_unique<http_endpoint>(
      pve_url_, read_text(ca), std::string("PVEAPIToken=") + pve_token_id + "=" + pve_token_secret);
  return {};
}

status lab_world::write_clusters_file() {
  clusters_path_ = work_dir_ + "/clusters.yaml";
  std::ofstream out(clusters_path_);
  // The simulator signs its certificate with its own CA: `ca_file` (our addition to the Go
  // provider's format) keeps TLS verification on, as in production.
  out << "features:\n  provider: default\nclusters:\n  - url: " << pve_url_
      << "/api2/json\n    ca_file: " << work_dir_ << "/pve-ca.pem\n    token_id: \"" << pve_token_id
      << "\"\n    token_secret: \"" << pve_token_secret << "\"\n    region: " << options_.region
      << "\n";
  out.close();
  if (!out) return make_error("io", "cannot write " + clusters_path_);
  return {};
}

status lab_world::apply_default_objects() {
  for (const auto& [name, text] : embedded_crds()) {
    if (auto s = apply_yaml(text); !s)
      return make_error(s.error().code, name + ": " + s.error().message);
  }
  // A CRD is served once created; discovery of its group may lag by a pass, so retry briefly.
  status last;
  bool done = eventually(
      [&] {
        discovery_.clear();
        last = apply_yaml(default_objects_yaml(options_));
        return last.ok();
      },
      10s);
  return done ? status{} : last;
}

std::map<std::string, std::string> lab_world::controller_settings() const {
  std::map<std::string, std::string> s{
      {"kubeconfig", kubeconfig_path_},
      {"cloud-config", clusters_path_},
      {"cluster-name", options_.cluster_name},
      {"cluster-endpoint", kube_url_},
      {"bind-address", "127.0.0.1"},
      {"metrics-port", "0"},
      {"health-probe-port", "0"},
      {"log-level", "info"},
      {"batch-idle-duration", "300ms"},
      {"batch-max-duration", "3s"},
      // A full clone of the lab's template takes about 20 s, and launches queue behind the
      // in-flight cap: 30 s would delete launches that are only waiting their turn.
      {"launch-timeout", options_.clone_mode == "full" ? "5m" : "30s"},
      {"registration-timeout", "30s"},
      {"min-drain-duration", "200ms"},
      {"garbage-collection-interval", "2s"},
      {"orphan-vm-grace-period", "5s"},
      {"leader-election-namespace", "kube-system"},
      {"leader-election-lease-duration", "3s"},
      {"leader-election-renew-deadline", "2s"},
      {"leader-election-retry-period", "500ms"},
      {"proxmox-inventory-interval", "5s"},
      {"proxmox-task-poll-interval", "100ms"},
      {"proxmox-request-timeout", "10s"},
  };
  for (const auto& [k, v] : options_.controller_settings) s[k] = v;
  return s;
}

result<std::size_t> lab_world::start_controller(const std::map<std::string, std::string>& extra) {
  auto settings = controller_settings();
  for (const auto& [k, v] : extra) settings[k] = v;
  std::string binary = options_.controller_binary.empty() ? options_.bin_dir + "/karpenter-proxmox"
                                                          : options_.controller_binary;
  std::vector<std::string> argv{binary};
  for (const auto& [k, v] : settings) argv.push_back("--" + k + "=" + v);
  controller_replica replica;
  replica.process = std::make_unique<child_process>();
  std::size_t index = controllers_.size();
  // The settings come as flags; drop inherited variables that would be read instead of defaults.
  std::vector<std::string> env{"KUBECONFIG=", "CLOUD_CONFIG=", "CLUSTER_NAME="};
  auto log = work_dir_ + "/controller-" + std::to_string(index) + ".log";
  if (auto s = replica.process->start(argv, env, log); !s) return s.error();
  replica.started = std::chrono::steady_clock::now();
  auto pid = replica.process->pid();
  auto line = replica.process->wait_for_line(
      [](const std::string& l) { return l.find("\"serving metrics\"") != std::string::npos; }, 20s);
  if (!line) {
    auto lines = replica.process->lines();
    std::string tail;
    for (auto i = lines.size() > 5 ? lines.size() - 5 : 0; i < lines.size(); ++i)
      tail += "\n  " + lines[i];
    replica.process->stop(1s);
    return make_error(line.error().code, "controller: " + line.error().message + tail);
  }
  boost::system::error_code parse_error;
  auto v = json::parse(*line, parse_error);
  if (v.is_object()) {
    const json::value* port = nullptr;
    if (auto* f = v.as_object().if_contains("fields"); f && f->is_object())
      port = f->as_object().if_contains("port");
    if (port == nullptr) port = v.as_object().if_contains("port");
    if (port != nullptr && port->is_string())
      replica.metrics_port = parse_integer<int>(port->as_string()).value_or(0);
    if (port != nullptr && port->is_int64())
      replica.metrics_port = static_cast<int>(port->as_int64());
  }
  replica.first_sample = sample_process(pid).value_or(process_sample{replica.started});
  controllers_.push_back(std::move(replica));
  return index;
}

void lab_world::stop_controller(std::size_t index) {
  auto& r = controllers_.at(index);
  if (r.process && r.process->running()) {
    r.last_sample = sample_process(r.process->pid());
    r.process->stop(5s);
  }
}

void lab_world::kill_controller(std::size_t index) {
  auto& r = controllers_.at(index);
  if (r.process && r.process->running()) {
    r.last_sample = sample_process(r.process->pid());
    r.process->kill_now();
  }
}

bool lab_world::eventually(const std::function<bool()>& check, std::chrono::milliseconds within) {
  auto deadline = std::chrono::steady_clock::now() + within;
  for (;;) {
    if (check()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    // Polling another process's state has no event to wait on; a short pause bounds the load.
    std::this_thread::sleep_for(50ms);
  }
}

result<std::string> lab_world::resource_of(const std::string& api_version, const std::string& kind,
                                           bool& namespaced) {
  auto key = api_version + "|" + kind;
  if (auto it = discovery_.find(key); it != discovery_.end()) {
    namespaced = it->second.second;
    return it->second.first;
  }
  std::string path = api_version == "v1" ? "/api/v1" : "/apis/" + api_version;
  auto r = kube_->call("GET", path);
  if (!r) return r.error();
  if (!r->ok()) return make_error("not_found", kube_error("discovery of " + api_version, *r));
  auto v = r->json();
  if (!v.is_object() || !v.as_object().contains("resources"))
    return make_error("protocol", "discovery of " + api_version + " has no resources");
  for (const auto& res : v.at("resources").as_array()) {
    const auto& o = res.as_object();
    auto name = std::string(o.at("name").as_string());
    if (name.find('/') != std::string::npos) continue;
    bool ns = o.at("namespaced").as_bool();
    discovery_[api_version + "|" + std::string(o.at("kind").as_string())] = {name, ns};
  }
  if (auto it = discovery_.find(key); it != discovery_.end()) {
    namespaced = it->second.second;
    return it->second.first;
  }
  return make_error("not_found", "the server does not serve " + kind + " in " + api_version);
}

result<std::string> lab_world::collection_path(const std::string& api_version,
                                               const std::string& kind, const std::string& ns) {
  bool namespaced = false;
  auto plural = resource_of(api_version, kind, namespaced);
  if (!plural) return plural.error();
  std::string base = api_version == "v1" ? "/api/v1" : "/apis/" + api_version;
  if (namespaced) base += "/namespaces/" + (ns.empty() ? std::string("default") : ns);
  return base + "/" + *plural;
}

status lab_world::apply(const json::object& object) {
  auto str = [&](std::initializer_list<const char*> path) -> std::string {
    const json::value* v = nullptr;
    const json::object* o = &object;
    for (auto key : path) {
      if (o == nullptr) return {};
      v = o->if_contains(key);
      if (v == nullptr) return {};
      o = v->if_object();
    }
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
  };
  auto api_version = str({"apiVersion"});
  auto kind = str({"kind"});
  auto name = str({"metadata", "name"});
  if (api_version.empty() || kind.empty() || name.empty())
    return make_error("invalid_manifest", "an object needs apiVersion, kind and metadata.name");
  auto path = collection_path(api_version, kind, str({"metadata", "namespace"}));
  if (!path) return path.error();
  auto r = kube_->call("PATCH", *path + "/" + name + "?fieldManager=kp-lab&force=true",
                       json::serialize(object), "application/apply-patch+yaml");
  if (!r) return r.error();
  if (!r->ok()) return make_error("apply_failed", kube_error(kind + " " + name, *r));
  return {};
}

status lab_world::apply_yaml(const std::string& manifest) {
  auto docs = yaml_documents_to_json(manifest);
  if (!docs) return docs.error();
  for (const auto& d : *docs) {
    if (!d.is_object())
      return make_error("invalid_manifest", "a manifest document is not a mapping");
    if (auto s = apply(d.as_object()); !s) return s;
  }
  return {};
}

status lab_world::remove(const std::string& api_version, const std::string& kind,
                         const std::string& name, const std::string& ns) {
  auto path = collection_path(api_version, kind, ns);
  if (!path) return path.error();
  auto r = kube_->call("DELETE", *path + "/" + name);
  if (!r) return r.error();
  if (!r->ok() && r->status != 404)
    return make_error("delete_failed", kube_error(kind + " " + name, *r));
  return {};
}

result<json::array> lab_world::list(const std::string& path) {
  auto r = kube_->call("GET", path);
  if (!r) return r.error();
  if (!r->ok()) return make_error("list_failed", kube_error("list " + path, *r));
  auto v = r->json();
  if (!v.is_object() || !v.as_object().contains("items") || !v.at("items").is_array())
    return make_error("protocol", "list " + path + " has no items");
  return v.at("items").as_array();
}

result<http_reply> lab_world::pve_api(const std::string& method, const std::string& path,
                                      const std::string& templated_path, const std::string& body) {
  ++own_pve_requests_[method + " " + templated_path];
  return pve_->call(method, "/api2/json" + path, body, "application/x-www-form-urlencoded");
}

result<std::vector<vm_entry>> lab_world::vms(bool new_only) {
  auto r = pve_api("GET", "/cluster/resources?type=vm", "/cluster/resources");
  if (!r) return r.error();
  if (!r->ok())
    return make_error("proxmox", "GET /cluster/resources: HTTP " + std::to_string(r->status));
  auto v = r->json();
  std::vector<vm_entry> out;
  if (!v.is_object() || !v.at("data").is_array()) return out;
  for (const auto& item : v.at("data").as_array()) {
    const auto& o = item.as_object();
    vm_entry e;
    if (auto* id = o.if_contains("vmid"); id && id->is_int64())
      e.vmid = static_cast<int>(id->as_int64());
    if (auto* n = o.if_contains("name"); n && n->is_string()) e.name = n->as_string();
    if (auto* n = o.if_contains("node"); n && n->is_string()) e.node = n->as_string();
    if (auto* n = o.if_contains("status"); n && n->is_string()) e.status = n->as_string();
    if (auto* t = o.if_contains("template"); t && t->is_int64()) e.templated = t->as_int64() != 0;
    if (new_only && initial_vmids_.count(e.vmid) != 0) continue;
    out.push_back(e);
  }
  return out;
}

status lab_world::set_faults(const std::string& plan) {
  bool clear = plan.find_first_not_of(" \t\r\n{}") == std::string::npos;
  auto r = clear ? pve_->call("DELETE", "/sim/v1/faults")
                 : pve_->call("PUT", "/sim/v1/faults", plan, "application/yaml");
  if (!r) return r.error();
  if (!r->ok()) return make_error("invalid_faults", "pve-sim refused the faults: " + r->body);
  return {};
}

}  // namespace kp::lab
