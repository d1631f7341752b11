#include "test/e2e/e2e_support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "sim/lab/scenario.hpp"
#include "sim/lab/scenario_runner.hpp"

namespace kp::e2e {

namespace json = boost::json;

namespace {

std::string str(const json::value& root, std::initializer_list<const char*> path) {
  const json::value* v = &root;
  for (auto key : path) {
    if (!v->is_object()) return {};
    v = v->as_object().if_contains(key);
    if (v == nullptr) return {};
  }
  return v->is_string() ? std::string(v->as_string()) : std::string();
}

bool has(const json::value& root, std::initializer_list<const char*> path) {
  const json::value* v = &root;
  for (auto key : path) {
    if (!v->is_object()) return false;
    v = v->as_object().if_contains(key);
    if (v == nullptr) return false;
  }
  return !v->is_null();
}

}  // namespace

long cluster_view::running() const {
  long n = 0;
  for (const auto& p : pods)
    if (p.phase == "Running" && !p.terminating) ++n;
  return n;
}

std::set<std::string> cluster_view::vm_names() const {
  std::set<std::string> s;
  for (const auto& vm : vms) s.insert(vm.name);
  return s;
}

std::set<std::string> cluster_view::nodeclaim_names() const {
  std::set<std::string> s;
  for (const auto& [name, _] : nodeclaims) s.insert(name);
  return s;
}

std::string cluster_view::text() const {
  std::string s = "pods:";
  for (const auto& p : pods)
    s += " " + p.name + "=" + p.phase + (p.node.empty() ? "" : "@" + p.node) +
         (p.phase == "Pending" && !p.scheduled.empty() ? "(" + p.scheduled + ")" : "");
  s += "\nnodeclaims:";
  for (const auto& [n, c] : nodeclaims)
    s += " " + n + (c.node_name.empty() ? "" : "->" + c.node_name) +
         (c.terminating ? "(deleting)" : "");
  s += "\nnodes:";
  for (const auto& [n, node] : nodes) s += " " + n + (node.ready ? "" : "(not ready)");
  s += "\nvms:";
  for (const auto& vm : vms)
    s += " " + std::to_string(vm.vmid) + "=" + vm.name + "@" + vm.node + "/" + vm.status;
  return s + "\n";
}

lab::lab_options e2e_options() {
  lab::lab_options o;
  const char* bin = std::getenv("KP_BIN_DIR");
  o.bin_dir = bin != nullptr ? bin : "build/bin";
  o.pve_sim_args = {"--time-scale", "0.25"};
  o.kube_sim_args = {"--pod-termination-ms", "200"};
  o.consolidate_after = "";
  o.controller_settings = {{"registration-timeout", "20s"}, {"launch-timeout", "20s"}};
  // KP_E2E_KEEP=1 keeps each test's logs and files under /tmp/kp-lab-* for a post-mortem.
  const char* keep = std::getenv("KP_E2E_KEEP");
  o.keep_work_dir = keep != nullptr && std::string(keep) == "1";
  return o;
}

std::string e2e_test::controller_event(const std::string& reason, const std::string& name_prefix) {
  auto events = world->list("/api/v1/namespaces/default/events");
  if (!events) return {};
  std::string found;
  for (const auto& e : *events) {
    if (str(e, {"reason"}) != reason) continue;
    std::string component = str(e, {"reportingComponent"});
    if (component.empty()) component = str(e, {"source", "component"});
    if (component.find("karpenter") == std::string::npos) continue;
    if (str(e, {"involvedObject", "name"}).rfind(name_prefix, 0) != 0) continue;
    found = str(e, {"message"});
    if (found.empty()) found = "(no message)";
  }
  return found;
}

void e2e_test::start_world(lab::lab_options options) {
  for (const char* b : {"kube-sim", "pve-sim", "karpenter-proxmox"})
    if (access((options.bin_dir + "/" + b).c_str(), X_OK) != 0)
      GTEST_SKIP() << options.bin_dir << "/" << b << " is not built";
  world = std::make_unique<lab::lab_world>(std::move(options));
  auto s = world->start();
  ASSERT_TRUE(s.ok()) << s.error().message;
}

std::size_t e2e_test::start_controller(const std::map<std::string, std::string>& extra) {
  auto index = world->start_controller(extra);
  EXPECT_TRUE(index.ok()) << (index.ok() ? "" : index.error().message);
  return index.ok() ? *index : 0;
}

void e2e_test::scale(const std::string& name, int replicas, const std::string& cpu,
                     const std::string& memory) {
  pod_shape shape;
  shape.cpu = cpu;
  shape.memory = memory;
  scale(name, replicas, shape);
}

void e2e_test::scale(const std::string& name, int replicas, const pod_shape& shape) {
  lab::scale_step s;
  s.name = name;
  s.replicas = replicas;
  s.cpu = shape.cpu;
  s.memory = shape.memory;
  auto manifest = json::parse(lab::replica_set_manifest(s));
  auto& pod = manifest.at("spec").at("template").at("spec").as_object();
  auto& resources = pod.at("containers").as_array().at(0).as_object().at("resources").as_object();
  json::object limits;
  for (const auto& [resource, count] : shape.extended) {
    resources.at("requests").as_object()[resource] = count;
    limits[resource] = count;
  }
  if (!limits.empty()) resources["limits"] = std::move(limits);
  if (shape.own_node) {
    json::object term{{"labelSelector", json::object{{"matchLabels", json::object{{"app", name}}}}},
                      {"topologyKey", "kubernetes.io/hostname"}};
    json::object anti_affinity{
        {"requiredDuringSchedulingIgnoredDuringExecution", json::array{std::move(term)}}};
    pod["affinity"] = json::object{{"podAntiAffinity", std::move(anti_affinity)}};
  }
  apply(json::serialize(manifest));
}

void e2e_test::apply(const std::string& yaml) {
  auto r = world->apply_yaml(yaml);
  ASSERT_TRUE(r.ok()) << r.error().message;
}

cluster_view e2e_test::view() {
  cluster_view v;
  if (auto pods = world->list("/api/v1/pods")) {
    for (const auto& p : *pods) {
      pod_view pv{str(p, {"metadata", "name"}), str(p, {"metadata", "namespace"}),
                  str(p, {"status", "phase"}), str(p, {"spec", "nodeName"}),
                  has(p, {"metadata", "deletionTimestamp"})};
      if (const auto* st = p.as_object().if_contains("status"); st != nullptr && st->is_object()) {
        if (const auto* conds = st->as_object().if_contains("conditions");
            conds && conds->is_array())
          for (const auto& c : conds->as_array())
            if (str(c, {"type"}) == "PodScheduled")
              pv.scheduled = str(c, {"status"}) + "/" + str(c, {"reason"});
        auto nominated = str(p, {"status", "nominatedNodeName"});
        if (!nominated.empty()) pv.scheduled += " nominated " + nominated;
      }
      v.pods.push_back(pv);
    }
  }
  if (auto claims = world->list("/apis/karpenter.sh/v1/nodeclaims")) {
    for (const auto& c : *claims) {
      nodeclaim_view cv{str(c, {"metadata", "name"}), str(c, {"status", "nodeName"}),
                        str(c, {"status", "providerID"}),
                        has(c, {"metadata", "deletionTimestamp"})};
      v.nodeclaims[cv.name] = cv;
    }
  }
  if (auto nodes = world->list("/api/v1/nodes")) {
    for (const auto& n : *nodes) {
      node_view nv{str(n, {"metadata", "name"}), str(n, {"spec", "providerID"}), {}, false};
      const json::value* spec = n.as_object().if_contains("spec");
      const json::value* taints =
          spec != nullptr && spec->is_object() ? spec->as_object().if_contains("taints") : nullptr;
      if (taints != nullptr && taints->is_array())
        for (const auto& t : taints->as_array())
          nv.taints.push_back(str(t, {"key"}) + ":" + str(t, {"effect"}));
      if (auto* st = n.as_object().if_contains("status"); st && st->is_object())
        if (auto* conds = st->as_object().if_contains("conditions"); conds && conds->is_array())
          for (const auto& c : conds->as_array())
            if (str(c, {"type"}) == "Ready") nv.ready = str(c, {"status"}) == "True";
      v.nodes[nv.name] = nv;
    }
  }
  if (auto vms = world->vms(true)) v.vms = *vms;
  return v;
}

bool e2e_test::wait_for(const std::function<bool(const cluster_view&)>& check,
                        std::chrono::milliseconds within) {
  return lab::lab_world::eventually([&] { return check(view()); }, within);
}

std::string e2e_test::diagnose() {
  if (!world) return {};
  std::string s = "\n" + view().text();
  for (std::size_t i = 0; i < world->controller_count(); ++i) {
    auto& c = world->controller(i);
    if (!c.process) continue;
    auto lines = c.process->lines();
    s += "controller " + std::to_string(i) + " (" + c.process->log_path() + "), last lines:\n";
    for (auto k = lines.size() > 15 ? lines.size() - 15 : 0; k < lines.size(); ++k)
      s += "  " + lines[k].substr(0, 400) + "\n";
  }
  return s;
}

std::string e2e_test::settled_leaks(std::chrono::milliseconds within) {
  std::string last;
  wait_for(
      [&](const cluster_view& v) {
        last = leaks(v);
        return last.empty();
      },
      within);
  return last;
}

std::string e2e_test::leaks(const cluster_view& v) {
  std::string problems;
  std::map<std::string, int> per_name;
  for (const auto& vm : v.vms) ++per_name[vm.name];
  // While Proxmox clones, the new VM is a locked config without a name yet: it belongs to one of
  // the NodeClaims still launching (no VM by their name, no providerID yet).
  long launching = 0;
  for (const auto& [name, c] : v.nodeclaims)
    if (c.provider_id.empty() && per_name.count(name) == 0) ++launching;
  if (auto unnamed = per_name.find(""); unnamed != per_name.end()) {
    if (unnamed->second > launching)
      problems += std::to_string(unnamed->second) + " unnamed VMs but only " +
                  std::to_string(launching) + " NodeClaims launching; ";
    per_name.erase(unnamed);
  }
  for (const auto& [name, n] : per_name) {
    if (v.nodeclaims.count(name) == 0) problems += "VM " + name + " has no NodeClaim; ";
    if (n > 1) problems += "NodeClaim " + name + " has " + std::to_string(n) + " VMs; ";
  }
  return problems;
}

namespace {

std::string form_escape(const std::string& s) {
  std::string out;
  char buf[4];
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.') {
      out += static_cast<char>(c);
    } else {
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

}  // namespace

void e2e_test::pve_create_vm(const std::string& node, int vmid, const std::string& name,
                             const std::string& description, bool start) {
  ASSERT_NO_FATAL_FAILURE(
      pve_task("POST", node, "/nodes/" + node + "/qemu", "/nodes/{node}/qemu",
               "vmid=" + std::to_string(vmid) + "&name=" + name +
                   "&memory=2048&cores=2&description=" + form_escape(description)));
  if (!start) return;
  ASSERT_NO_FATAL_FAILURE(
      pve_task("POST", node, "/nodes/" + node + "/qemu/" + std::to_string(vmid) + "/status/start",
               "/nodes/{node}/qemu/{vmid}/status/start"));
}

void e2e_test::pve_task(const std::string& method, const std::string& node, const std::string& path,
                        const std::string& templated_path, const std::string& body) {
  auto r = world->pve_api(method, path, templated_path, body);
  ASSERT_TRUE(r.ok() && r->ok()) << method << " " << path << ": "
                                 << (r.ok() ? r->body : r.error().message);
  auto reply = r->json();  // by value: keep it while `data` refers into it
  const auto& data = reply.at("data");
  ASSERT_TRUE(data.is_string()) << method << " " << path << " started no task: " << r->body;
  pve_wait_task(node, std::string(data.as_string()));
}

void e2e_test::pve_wait_task(const std::string& node, const std::string& upid) {
  std::string exit_status;
  ASSERT_TRUE(lab::lab_world::eventually(
      [&] {
        auto t = world->pve_api("GET", "/nodes/" + node + "/tasks/" + form_escape(upid) + "/status",
                                "/nodes/{node}/tasks/{upid}/status");
        if (!t.ok() || !t->ok()) return false;
        auto body = t->json();
        const auto& data = body.at("data").as_object();
        if (data.at("status").as_string() != "stopped") return false;
        exit_status = std::string(data.at("exitstatus").as_string());
        return true;
      },
      10s));
  ASSERT_EQ(exit_status, "OK") << upid;
}

std::string e2e_test::pve_config_digest(const std::string& node, int vmid) {
  auto config = pve_vm_config(node, vmid);
  if (!config.ok()) return "gone";
  return std::string(config->at("digest").as_string());
}

result<json::object> e2e_test::pve_vm_config(const std::string& node, int vmid) {
  auto r = world->pve_api("GET", "/nodes/" + node + "/qemu/" + std::to_string(vmid) + "/config",
                          "/nodes/{node}/qemu/{vmid}/config");
  if (!r.ok()) return r.error();
  if (!r->ok()) return make_error("http", "HTTP " + std::to_string(r->status) + ": " + r->body);
  auto body = r->json();
  const auto* data = body.is_object() ? body.as_object().if_contains("data") : nullptr;
  if (data == nullptr || !data->is_object()) return make_error("reply", "no config: " + r->body);
  return data->as_object();
}

long e2e_test::pve_requests(const std::string& key) {
  auto r = world->pve().call("GET", "/sim/v1/stats");
  if (!r.ok() || !r->ok()) return -1;
  long n = 0;
  auto stats = r->json();
  for (const auto& e : stats.at("requests").as_array()) {
    auto k = std::string(e.at("method").as_string()) + " " + std::string(e.at("path").as_string());
    if (k == key) n += e.at("count").to_number<long>();
  }
  auto own = world->own_pve_requests();
  if (auto it = own.find(key); it != own.end()) n -= it->second;
  return n;
}

long e2e_test::kube_requests_by_method(bool gets) {
  auto r = world->kube().call("GET", "/sim/v1/stats");
  if (!r.ok() || !r->ok()) return -1;
  long n = 0;
  const auto stats = r->json();  // kept: the loop reads into it
  for (const auto& [method, count] : stats.at("requestsByMethod").as_object())
    if ((method == "GET") == gets) n += count.to_number<long>();
  return n;
}

long e2e_test::pve_requests_by_method(bool gets) {
  auto r = world->pve().call("GET", "/sim/v1/stats");
  if (!r.ok() || !r->ok()) return -1;
  long n = 0;
  const auto stats = r->json();  // kept: the loop reads into it
  for (const auto& e : stats.at("requests").as_array())
    if ((e.at("method").as_string() == "GET") == gets) n += e.at("count").to_number<long>();
  return n;
}

std::string controller_binary() {
  const char* d = std::getenv("KP_BIN_DIR");
  return std::string(d != nullptr ? d : "build/bin") + "/karpenter-proxmox";
}

command_result run_command(const std::string& command, const std::string& err_path) {
  command_result r;
  FILE* p = popen((command + " 2>" + err_path).c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  while (auto n = fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
  int st = pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  std::ifstream in(err_path);
  r.err = std::string(std::istreambuf_iterator<char>(in), {});
  return r;
}

}  // namespace kp::e2e
