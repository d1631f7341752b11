#include "sim/pve/guest_fleet.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json.hpp>

#include <ctime>
#include <exception>
#include <fstream>
#include <functional>
#include <iterator>

#include "core/cloudinit/nocloud_iso.hpp"
#include "core/text/base64.hpp"
#include "protocol/transport/http_client.hpp"
#include "protocol/transport/tls_certificates.hpp"
#include "sim/pve/guest_join_plan.hpp"

namespace kp::sim::pve {

namespace json = boost::json;
using transport::http_client;
using transport::http_request;
using transport::response_result;

namespace {

std::string micro_time() {
  auto now = std::chrono::system_clock::now();
  auto secs = std::chrono::system_clock::to_time_t(now);
  auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() %
      1000000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<long long>(micros));
  return buf;
}

std::string rfc3339() {
  return micro_time().substr(0, 19) + "Z";
}

http_request json_request(std::string method, std::string target, const json::value& body,
                          std::string content_type = "application/json") {
  http_request r;
  r.method = std::move(method);
  r.target = std::move(target);
  r.headers = {{"Accept", "application/json"},
               {"User-Agent", "kubelet/v1.32.0 (linux/amd64) pve-sim"}};
  if (!body.is_null()) {
    r.headers.emplace_back("Content-Type", std::move(content_type));
    r.body = json::serialize(body);
  }
  return r;
}

json::object parse_object(const std::string& text) {
  boost::system::error_code ec;
  auto v = json::parse(text, ec);
  if (ec || !v.is_object()) return {};
  return v.as_object();
}

std::string string_at(const json::object& o, std::initializer_list<const char*> path) {
  const json::value* cur = nullptr;
  const json::object* obj = &o;
  for (const char* key : path) {
    if (!obj) return "";
    auto it = obj->find(key);
    if (it == obj->end()) return "";
    cur = &it->value();
    obj = cur->is_object() ? &cur->as_object() : nullptr;
  }
  return cur && cur->is_string() ? std::string(cur->as_string()) : "";
}

}  // namespace

struct guest_state {
  guest_boot boot;
  std::string phase = "booting";
  std::string detail;
  std::uint64_t generation = 0;
  bool agent_up = false;
  std::uint64_t renewals = 0;
  join_plan plan;
  std::string key_pem;
  std::string csr_name;
  std::string node_uid;
  json::object lease;
  std::unique_ptr<http_client> bootstrap_client;
  std::unique_ptr<http_client> node_client;
  int csr_polls = 0;
};

struct guest_fleet::impl : std::enable_shared_from_this<guest_fleet::impl> {
  impl(boost::asio::io_context& io, guest_settings s) : io(io), settings(std::move(s)) {}

  boost::asio::io_context& io;
  guest_settings settings;
  std::map<int, guest_state> guests;
  std::vector<std::unique_ptr<http_client>>
      retired;  // closed clients whose callbacks may still run

  using step = std::function<void(guest_state&)>;

  // Runs `fn` later unless the guest was stopped or restarted in between.
  void later(int vmid, std::uint64_t gen, std::chrono::milliseconds delay, step fn) {
    auto timer = std::make_shared<boost::asio::steady_timer>(io, delay);
    std::weak_ptr<impl> weak = shared_from_this();
    timer->async_wait(
        [timer, weak, vmid, gen, fn = std::move(fn)](const boost::system::error_code& ec) {
          if (ec) return;
          if (auto self = weak.lock()) self->resume(vmid, gen, fn);
        });
  }

  // What a step throws fails the guest with the reason; it never vanishes into the io loop.
  void resume(int vmid, std::uint64_t gen, const step& fn) {
    auto it = guests.find(vmid);
    if (it == guests.end() || it->second.generation != gen || it->second.phase == "stopped") return;
    try {
      fn(it->second);
    } catch (const std::exception& e) {
      fail(it->second, std::string("guest step failed: ") + e.what());
    } catch (...) {
      fail(it->second, "guest step failed");
    }
  }

  // Sends one request through `client`; the reply resumes the guest if it is still the same boot.
  void call(guest_state& g, http_client& client, http_request request,
            std::function<void(guest_state&, const response_result&)> fn) {
    std::weak_ptr<impl> weak = shared_from_this();
    const int vmid = g.boot.vmid;
    const auto gen = g.generation;
    client.send(g.plan.server, std::move(request),
                [weak, vmid, gen, fn = std::move(fn)](response_result r) {
                  auto self = weak.lock();
                  if (!self) return;
                  self->resume(vmid, gen, [&](guest_state& g) { fn(g, r); });
                });
  }

  void fail(guest_state& g, std::string why) {
    g.phase = "failed";
    g.detail = std::move(why);
  }

  void retry_later(guest_state& g, std::string why, step fn) {
    g.detail = std::move(why);
    later(g.boot.vmid, g.generation, settings.csr_poll * 10, std::move(fn));
  }

  void boot(guest_state& g) {
    g.phase = "running";
    if (g.boot.agent)
      later(g.boot.vmid, g.generation, settings.agent_delay,
            [](guest_state& g) { g.agent_up = true; });
    if (!g.boot.baked_join.empty()) {
      auto plan = join_plan_from_command(g.boot.baked_join);
      if (!plan) return fail(g, plan.error().message);
      return begin_join(g, std::move(*plan));
    }
    if (!g.boot.cdrom_iso) {
      g.detail = "no cloud-init CD-ROM; not joining";
      return;
    }
    std::ifstream in(*g.boot.cdrom_iso, std::ios::binary);
    std::string image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto files = cloudinit::read_nocloud_iso(image);
    if (!files) return fail(g, "cloud-init: " + files.error().message);
    auto plan = join_plan_from_user_data(files->user_data);
    if (!plan) return fail(g, "cloud-init: " + plan.error().message);
    begin_join(g, std::move(*plan));
  }

  void begin_join(guest_state& g, join_plan plan) {
    if (plan.node_name.empty()) plan.node_name = g.boot.name;
    if (plan.provider_id.empty())
      plan.provider_id = "proxmox://" + settings.region + "/" + std::to_string(g.boot.vmid);
    g.plan = std::move(plan);
    g.phase = "joining";
    transport::client_options opts;
    opts.ca_pem = g.plan.ca_pem;
    opts.insecure_skip_verify = g.plan.ca_pem.empty();
    opts.request_timeout = std::chrono::seconds(10);
    opts.connect_timeout = std::chrono::seconds(5);
    if (g.bootstrap_client) retire(std::move(g.bootstrap_client));
    g.bootstrap_client = std::make_unique<http_client>(io, opts);
    auto csr = transport::make_client_csr("system:node:" + g.plan.node_name, {"system:nodes"});
    if (!csr) return fail(g, "csr: " + csr.error().message);
    g.key_pem = csr->private_key_pem;
    json::object body{
        {"apiVersion", "certificates.k8s.io/v1"},
        {"kind", "CertificateSigningRequest"},
        {"metadata", json::object{{"generateName", "node-csr-"}}},
        {"spec", json::object{{"request", text::base64_encode(csr->csr_pem)},
                              {"signerName", "kubernetes.io/kube-apiserver-client-kubelet"},
                              {"usages", json::array{"digital signature", "client auth"}}}}};
    auto req =
        json_request("POST", "/apis/certificates.k8s.io/v1/certificatesigningrequests", body);
    req.headers.emplace_back("Authorization", "Bearer " + g.plan.token);
    call(g, *g.bootstrap_client, std::move(req), [this](guest_state& g, const response_result& r) {
      if (!r)
        return retry_later(g, "csr create: " + r.error().message,
                           [this](guest_state& g) { begin_join(g, g.plan); });
      if (r->status == 401 || r->status == 403)
        return fail(g, "bootstrap token refused (HTTP " + std::to_string(r->status) + ")");
      if (r->status != 201 && r->status != 200)
        return retry_later(g, "csr create: HTTP " + std::to_string(r->status),
                           [this](guest_state& g) { begin_join(g, g.plan); });
      g.csr_name = string_at(parse_object(r->body), {"metadata", "name"});
      g.csr_polls = 0;
      poll_csr(g);
    });
  }

  void poll_csr(guest_state& g) {
    auto req = json_request(
        "GET", "/apis/certificates.k8s.io/v1/certificatesigningrequests/" + g.csr_name, nullptr);
    req.headers.emplace_back("Authorization", "Bearer " + g.plan.token);
    call(g, *g.bootstrap_client, std::move(req), [this](guest_state& g, const response_result& r) {
      auto again = [this](guest_state& g) { poll_csr(g); };
      if (!r) return retry_later(g, "csr get: " + r.error().message, again);
      if (r->status == 401 || r->status == 403)
        return fail(g, "bootstrap token refused (HTTP " + std::to_string(r->status) + ")");
      auto obj = parse_object(r->body);
      if (auto st = obj.find("status"); st != obj.end() && st->value().is_object()) {
        const auto& status = st->value().as_object();
        if (auto c = status.find("conditions"); c != status.end() && c->value().is_array())
          for (const auto& cond : c->value().as_array())
            if (cond.is_object()) {
              auto type = string_at(cond.as_object(), {"type"});
              if (type == "Denied" || type == "Failed")
                return fail(g, "certificate request " + type);
            }
        auto cert = string_at(status, {"certificate"});
        if (!cert.empty()) return got_credential(g, text::base64_decode(cert).value_or(""));
      }
      ++g.csr_polls;
      g.detail = "waiting for certificate " + g.csr_name;
      later(g.boot.vmid, g.generation, settings.csr_poll, again);
    });
  }

  void got_credential(guest_state& g, const std::string& certificate_pem) {
    transport::client_options opts;
    opts.ca_pem = g.plan.ca_pem;
    opts.insecure_skip_verify = g.plan.ca_pem.empty();
    opts.client_certificate_pem = certificate_pem;
    opts.client_key_pem = g.key_pem;
    opts.request_timeout = std::chrono::seconds(10);
    if (g.node_client) retire(std::move(g.node_client));
    g.node_client = std::make_unique<http_client>(io, opts);
    register_node(g);
  }

  void register_node(guest_state& g) {
    json::object labels{{"kubernetes.io/hostname", g.plan.node_name},
                        {"kubernetes.io/os", "linux"},
                        {"kubernetes.io/arch", "amd64"},
                        {"beta.kubernetes.io/os", "linux"},
                        {"beta.kubernetes.io/arch", "amd64"}};
    for (const auto& [k, v] : g.plan.labels) labels[k] = v;
    json::array taints;
    for (const auto& t : g.plan.taints) {
      json::object o{{"key", t.key}, {"effect", t.effect}};
      if (!t.value.empty()) o["value"] = t.value;
      taints.push_back(std::move(o));
    }
    json::object spec{{"providerID", g.plan.provider_id}};
    if (!taints.empty()) spec["taints"] = taints;
    json::object node{{"apiVersion", "v1"},
                      {"kind", "Node"},
                      {"metadata", json::object{{"name", g.plan.node_name}, {"labels", labels}}},
                      {"spec", spec}};
    call(g, *g.node_client, json_request("POST", "/api/v1/nodes", node),
         [this](guest_state& g, const response_result& r) {
           auto again = [this](guest_state& g) { register_node(g); };
           if (!r) return retry_later(g, "node create: " + r.error().message, again);
           if (r->status != 201 && r->status != 200 && r->status != 409)
             return retry_later(
                 g, "node create: HTTP " + std::to_string(r->status) + " " + r->body.substr(0, 200),
                 again);
           g.node_uid = string_at(parse_object(r->body), {"metadata", "uid"});
           report_status(g);
         });
  }

  json::object node_status(const guest_state& g) const {
    const std::int64_t cpu_millis = static_cast<std::int64_t>(g.boot.cpus) * 1000;
    const std::int64_t mem = static_cast<std::int64_t>(g.boot.memory_mib) << 20;
    auto alloc_cpu = std::max<std::int64_t>(0, cpu_millis - g.plan.reserved_cpu_millis);
    auto alloc_mem = std::max<std::int64_t>(0, mem - g.plan.reserved_memory_bytes);
    const std::string now = rfc3339();
    auto condition = [&](const char* type, const char* status, const char* reason,
                         const char* message) {
      return json::object{
          {"type", type},       {"status", status},         {"reason", reason},
          {"message", message}, {"lastHeartbeatTime", now}, {"lastTransitionTime", now}};
    };
    json::array addresses{json::object{{"type", "Hostname"}, {"address", g.plan.node_name}}};
    if (!g.boot.ip.empty())
      addresses.push_back(json::object{{"type", "InternalIP"}, {"address", g.boot.ip}});
    json::object capacity{{"cpu", std::to_string(g.boot.cpus)},
                          {"memory", std::to_string(mem / 1024) + "Ki"},
                          {"pods", std::to_string(g.plan.max_pods)},
                          {"ephemeral-storage", "10255636Ki"}};
    json::object allocatable{{"cpu", std::to_string(alloc_cpu) + "m"},
                             {"memory", std::to_string(alloc_mem / 1024) + "Ki"},
                             {"pods", std::to_string(g.plan.max_pods)},
                             {"ephemeral-storage", "9451594Ki"}};
    for (const auto& [name, count] : g.boot.extended_resources) {
      capacity[name] = std::to_string(count);
      allocatable[name] = std::to_string(count);
    }
    return json::object{
        {"capacity", std::move(capacity)},
        {"allocatable", std::move(allocatable)},
        {"conditions",
         json::array{
             condition("MemoryPressure", "False", "KubeletHasSufficientMemory",
                       "kubelet has sufficient memory available"),
             condition("DiskPressure", "False", "KubeletHasNoDiskPressure",
                       "kubelet has no disk pressure"),
             condition("PIDPressure", "False", "KubeletHasSufficientPID",
                       "kubelet has sufficient PID available"),
             condition("Ready", "True", "KubeletReady", "kubelet is posting ready status")}},
        {"addresses", addresses},
        {"nodeInfo", json::object{{"machineID", std::to_string(g.boot.vmid)},
                                  {"systemUUID", std::to_string(g.boot.vmid)},
                                  {"bootID", std::to_string(g.generation)},
                                  {"kernelVersion", "6.8.0-pve-sim"},
                                  {"osImage", "pve-sim guest"},
                                  {"containerRuntimeVersion", "containerd://1.7.24"},
                                  {"kubeletVersion", "v1.32.0"},
                                  {"kubeProxyVersion", "v1.32.0"},
                                  {"operatingSystem", "linux"},
                                  {"architecture", "amd64"}}}};
  }

  void report_status(guest_state& g) {
    json::object patch{{"status", node_status(g)}};
    call(g, *g.node_client,
         json_request("PATCH", "/api/v1/nodes/" + g.plan.node_name + "/status", patch,
                      "application/merge-patch+json"),
         [this](guest_state& g, const response_result& r) {
           auto again = [this](guest_state& g) { report_status(g); };
           if (!r) return retry_later(g, "node status: " + r.error().message, again);
           if (r->status != 200)
             return retry_later(g, "node status: HTTP " + std::to_string(r->status), again);
           create_lease(g);
         });
  }

  json::object lease_object(const guest_state& g) const {
    json::object meta{{"name", g.plan.node_name}, {"namespace", "kube-node-lease"}};
    if (!g.node_uid.empty())
      meta["ownerReferences"] = json::array{json::object{
          {"apiVersion", "v1"}, {"kind", "Node"}, {"name", g.plan.node_name}, {"uid", g.node_uid}}};
    return json::object{{"apiVersion", "coordination.k8s.io/v1"},
                        {"kind", "Lease"},
                        {"metadata", meta},
                        {"spec", json::object{{"holderIdentity", g.plan.node_name},
                                              {"leaseDurationSeconds", 40},
                                              {"renewTime", micro_time()}}}};
  }

  std::string lease_path(const guest_state& g) const {
    return "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/" + g.plan.node_name;
  }

  void create_lease(guest_state& g) {
    call(g, *g.node_client,
         json_request("POST", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases",
                      lease_object(g)),
         [this](guest_state& g, const response_result& r) {
           auto again = [this](guest_state& g) { create_lease(g); };
           if (!r) return retry_later(g, "lease create: " + r.error().message, again);
           if (r->status == 409) return fetch_lease(g);
           if (r->status != 201 && r->status != 200)
             return retry_later(g, "lease create: HTTP " + std::to_string(r->status), again);
           g.lease = parse_object(r->body);
           joined(g);
         });
  }

  void fetch_lease(guest_state& g) {
    call(g, *g.node_client, json_request("GET", lease_path(g), nullptr),
         [this](guest_state& g, const response_result& r) {
           if (!r || r->status != 200)
             return retry_later(g, "lease get failed", [this](guest_state& g) { fetch_lease(g); });
           g.lease = parse_object(r->body);
           renew(g);
         });
  }

  void joined(guest_state& g) {
    g.phase = "joined";
    g.detail = "node " + g.plan.node_name;
    later(g.boot.vmid, g.generation, settings.lease_renew, [this](guest_state& g) { renew(g); });
  }

  void renew(guest_state& g) {
    auto lease = g.lease;
    if (lease.empty()) lease = lease_object(g);
    if (auto spec = lease.find("spec"); spec != lease.end() && spec->value().is_object()) {
      spec->value().as_object()["renewTime"] = micro_time();
      spec->value().as_object()["holderIdentity"] = g.plan.node_name;
    }
    call(g, *g.node_client, json_request("PUT", lease_path(g), lease),
         [this](guest_state& g, const response_result& r) {
           if (r && r->status == 200) {
             g.lease = parse_object(r->body);
             ++g.renewals;
             return joined(g);
           }
           if (r && (r->status == 409 || r->status == 404))
             return r->status == 409 ? fetch_lease(g) : create_lease(g);
           retry_later(g, "lease renew failed", [this](guest_state& g) { renew(g); });
         });
  }

  void retire(std::unique_ptr<http_client> client) {
    client->close();
    retired.push_back(std::move(client));
  }
};

guest_fleet::guest_fleet(boost::asio::io_context& io, guest_settings settings)
    : impl_(std::make_shared<impl>(io, std::move(settings))) {}

guest_fleet::~guest_fleet() {
  for (auto& [id, g] : impl_->guests) {
    if (g.bootstrap_client) g.bootstrap_client->close();
    if (g.node_client) g.node_client->close();
  }
}

void guest_fleet::start(guest_boot boot) {
  auto& g = impl_->guests[boot.vmid];
  std::uint64_t gen = g.generation + 1;
  if (g.bootstrap_client) impl_->retire(std::move(g.bootstrap_client));
  if (g.node_client) impl_->retire(std::move(g.node_client));
  g = guest_state{};
  g.generation = gen;
  g.boot = std::move(boot);
  impl_->later(g.boot.vmid, gen, impl_->settings.boot_delay,
               [this](guest_state& g) { impl_->boot(g); });
}

void guest_fleet::stop(int vmid) {
  auto it = impl_->guests.find(vmid);
  if (it == impl_->guests.end()) return;
  auto& g = it->second;
  ++g.generation;
  g.phase = "stopped";
  g.agent_up = false;
  if (g.bootstrap_client) impl_->retire(std::move(g.bootstrap_client));
  if (g.node_client) impl_->retire(std::move(g.node_client));
}

bool guest_fleet::agent_running(int vmid) const {
  auto it = impl_->guests.find(vmid);
  return it != impl_->guests.end() && it->second.agent_up;
}

guest_fleet::exec_outcome guest_fleet::exec(int vmid, const std::vector<std::string>& argv) {
  std::string command;
  for (const auto& a : argv) command += (command.empty() ? "" : " ") + a;
  if (command.find("kube-join") == std::string::npos) return {0, "", ""};
  auto it = impl_->guests.find(vmid);
  if (it == impl_->guests.end()) return {1, "", "guest is not running\n"};
  auto plan = join_plan_from_command(command);
  if (!plan) return {2, "", plan.error().message + "\n"};
  if (it->second.phase == "joining" || it->second.phase == "joined")
    return {0, "already " + it->second.phase + "\n", ""};
  impl_->begin_join(it->second, std::move(*plan));
  return {0, "joining " + it->second.plan.server + "\n", ""};
}

std::vector<guest_report> guest_fleet::reports() const {
  std::vector<guest_report> out;
  for (const auto& [id, g] : impl_->guests) out.push_back({id, g.phase, g.detail, g.renewals});
  return out;
}

}  // namespace kp::sim::pve
