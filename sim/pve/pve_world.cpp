#include "sim/pve/pve_world.hpp"

#include <openssl/rand.h>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>

#include "sim/pve/guest_fleet.hpp"
#include "sim/pve/property_string.hpp"

namespace kp::sim::pve {

namespace json = boost::json;

namespace {

using handler_fn = api_reply (pve_world::*)(api_call&);

struct route {
  const char* method;
  const char* path;  // template; {x} captures one segment
  handler_fn fn;
  bool public_path = false;
};

const std::vector<route>& routes() {
  static const std::vector<route> table = {
      {"GET", "/version", &pve_world::get_version},
      {"GET", "/cluster/status", &pve_world::get_cluster_status},
      {"GET", "/cluster/resources", &pve_world::get_cluster_resources},
      {"GET", "/cluster/nextid", &pve_world::get_nextid},
      {"GET", "/cluster/firewall/groups", &pve_world::get_firewall_groups},
      {"POST", "/cluster/firewall/groups", &pve_world::post_firewall_group},
      {"GET", "/cluster/firewall/groups/{group}", &pve_world::get_firewall_group},
      {"POST", "/cluster/firewall/groups/{group}", &pve_world::post_firewall_group_rule},
      {"DELETE", "/cluster/firewall/groups/{group}", &pve_world::delete_firewall_group},
      {"POST", "/access/ticket", &pve_world::post_ticket, true},
      {"GET", "/access/ticket", &pve_world::get_ticket, true},
      {"GET", "/access/domains", &pve_world::get_domains, true},
      {"GET", "/pools", &pve_world::get_pools},
      {"POST", "/pools", &pve_world::post_pool},
      {"GET", "/pools/{poolid}", &pve_world::get_pool},
      {"PUT", "/pools/{poolid}", &pve_world::put_pool},
      {"DELETE", "/pools/{poolid}", &pve_world::delete_pool},
      {"GET", "/nodes", &pve_world::get_nodes},
      {"GET", "/nodes/{node}/status", &pve_world::get_node_status},
      {"GET", "/nodes/{node}/network", &pve_world::get_node_network},
      {"GET", "/nodes/{node}/capabilities/qemu/cpu", &pve_world::get_cpu_capabilities},
      {"GET", "/nodes/{node}/storage", &pve_world::get_storage_list},
      {"GET", "/nodes/{node}/storage/{storage}/content", &pve_world::get_content},
      {"GET", "/nodes/{node}/storage/{storage}/content/{volume}", &pve_world::get_volume},
      {"DELETE", "/nodes/{node}/storage/{storage}/content/{volume}", &pve_world::delete_volume},
      {"POST", "/nodes/{node}/storage/{storage}/upload", &pve_world::post_upload},
      {"POST", "/nodes/{node}/storage/{storage}/download-url", &pve_world::post_download_url},
      {"GET", "/nodes/{node}/qemu", &pve_world::get_qemu_list},
      {"POST", "/nodes/{node}/qemu", &pve_world::post_qemu_create},
      {"GET", "/nodes/{node}/qemu/{vmid}", &pve_world::get_vm_index},
      {"DELETE", "/nodes/{node}/qemu/{vmid}", &pve_world::delete_vm},
      {"GET", "/nodes/{node}/qemu/{vmid}/config", &pve_world::get_config},
      {"POST", "/nodes/{node}/qemu/{vmid}/config", &pve_world::post_config},
      {"PUT", "/nodes/{node}/qemu/{vmid}/config", &pve_world::put_config},
      {"GET", "/nodes/{node}/qemu/{vmid}/pending", &pve_world::get_pending},
      {"PUT", "/nodes/{node}/qemu/{vmid}/resize", &pve_world::put_resize},
      {"POST", "/nodes/{node}/qemu/{vmid}/clone", &pve_world::post_clone},
      {"POST", "/nodes/{node}/qemu/{vmid}/template", &pve_world::post_template},
      {"GET", "/nodes/{node}/qemu/{vmid}/status/current", &pve_world::get_status_current},
      {"POST", "/nodes/{node}/qemu/{vmid}/status/start", &pve_world::post_start},
      {"POST", "/nodes/{node}/qemu/{vmid}/status/stop", &pve_world::post_stop},
      {"POST", "/nodes/{node}/qemu/{vmid}/status/shutdown", &pve_world::post_shutdown},
      {"GET", "/nodes/{node}/qemu/{vmid}/firewall/options", &pve_world::get_vm_firewall_options},
      {"PUT", "/nodes/{node}/qemu/{vmid}/firewall/options", &pve_world::put_vm_firewall_options},
      {"GET", "/nodes/{node}/qemu/{vmid}/firewall/rules", &pve_world::get_vm_firewall_rules},
      {"POST", "/nodes/{node}/qemu/{vmid}/firewall/rules", &pve_world::post_vm_firewall_rule},
      {"GET", "/nodes/{node}/qemu/{vmid}/firewall/rules/{pos}", &pve_world::get_vm_firewall_rule},
      {"PUT", "/nodes/{node}/qemu/{vmid}/firewall/rules/{pos}", &pve_world::put_vm_firewall_rule},
      {"DELETE", "/nodes/{node}/qemu/{vmid}/firewall/rules/{pos}",
       &pve_world::delete_vm_firewall_rule},
      {"POST", "/nodes/{node}/qemu/{vmid}/agent/ping", &pve_world::post_agent_ping},
      {"POST", "/nodes/{node}/qemu/{vmid}/agent/exec", &pve_world::post_agent_exec},
      {"GET", "/nodes/{node}/qemu/{vmid}/agent/exec-status", &pve_world::get_agent_exec_status},
      {"GET", "/nodes/{node}/qemu/{vmid}/agent/network-get-interfaces",
       &pve_world::get_agent_interfaces},
      {"GET", "/nodes/{node}/tasks", &pve_world::get_tasks},
      {"GET", "/nodes/{node}/tasks/{upid}/status", &pve_world::get_task_status},
      {"GET", "/nodes/{node}/tasks/{upid}/log", &pve_world::get_task_log},
      {"DELETE", "/nodes/{node}/tasks/{upid}", &pve_world::delete_task},
  };
  return table;
}

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < path.size()) {
    auto slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) out.push_back(std::string(path.substr(start, slash - start)));
    start = slash + 1;
  }
  return out;
}

// Matches raw (still encoded) segments against a template; decodes the captures.
bool match_route(const route& r, const std::vector<std::string>& segments,
                 std::map<std::string, std::string>& captures) {
  auto parts = split_path(r.path);
  if (parts.size() != segments.size()) return false;
  std::map<std::string, std::string> found;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].front() == '{') {
      found[parts[i].substr(1, parts[i].size() - 2)] = url_decode(segments[i], false);
    } else if (parts[i] != segments[i]) {
      return false;
    }
  }
  captures = std::move(found);
  return true;
}

std::string random_base64(std::size_t bytes) {
  std::string raw(bytes, '\0');
  RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(bytes));
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned value = 0;
  int bits = -6;
  for (unsigned char c : raw) {
    value = (value << 8) + c;
    bits += 8;
    while (bits >= 0) {
      out.push_back(alphabet[(value >> bits) & 0x3F]);
      bits -= 6;
    }
  }
  if (bits > -6) out.push_back(alphabet[((value << 8) >> (bits + 8)) & 0x3F]);
  while (out.size() % 4) out.push_back('=');
  return out;
}

std::string hex8(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%08llX", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

pve_world::pve_world(boost::asio::io_context& io, simulator_options options)
    : io_(io), options_(std::move(options)), boot_time_(sim_clock::now()) {
  const auto& t = options_.topo;
  for (const auto& v : t.vms) {
    vm_state vm;
    vm.vmid = v.vmid;
    vm.node = v.node;
    vm.config = v.config;
    vm.created = boot_time_ - std::chrono::hours(1);
    vms[v.vmid] = std::move(vm);
  }
  for (const auto& u : t.users) {
    if (!u.password.empty()) passwords[u.userid] = u.password;
    for (const auto& tk : u.tokens) token_secrets[u.userid + "!" + tk.id] = tk.secret;
  }
  for (const auto& p : t.pools) pools[p.id].comment = p.comment;
  for (const auto& g : t.firewall_groups) {
    auto& st = firewall_groups[g.name];
    st.comment = g.comment;
    for (const auto& r : g.rules) st.rules.push_back({r.fields});
  }
  if (options_.faults) {
    faults_.replace(*options_.faults);
  } else if (!t.faults_yaml.empty()) {
    auto plan = parse_fault_plan(t.faults_yaml);
    if (plan) faults_.replace(*plan);
  }
  guest_settings gs;
  gs.boot_delay = duration("boot");
  gs.agent_delay = duration("agent");
  gs.lease_renew = duration("lease_renew");
  gs.csr_poll = duration("csr_poll");
  gs.region = t.region;
  guests_ = std::make_unique<guest_fleet>(io_, gs);
  std::error_code ec;
  for (const auto& h : t.hosts)
    for (const auto& s : h.storages)
      std::filesystem::create_directories(options_.data_dir / h.name / s, ec);
}

pve_world::~pve_world() = default;

std::chrono::milliseconds pve_world::duration(const std::string& name) const {
  auto it = options_.topo.durations.find(name);
  double ms = it == options_.topo.durations.end() ? 100.0 : it->second;
  return std::chrono::milliseconds(static_cast<std::int64_t>(ms * options_.time_scale));
}

void pve_world::after(std::chrono::milliseconds delay, std::function<void()> work) {
  std::weak_ptr<int> alive = alive_;
  if (delay.count() <= 0) {
    boost::asio::post(io_, [alive, work = std::move(work)] {
      if (!alive.expired()) work();
    });
    return;
  }
  auto timer = std::make_shared<boost::asio::steady_timer>(io_, delay);
  timer->async_wait([timer, alive, work = std::move(work)](const boost::system::error_code& ec) {
    if (!ec && !alive.expired()) work();
  });
}

std::int64_t pve_world::now_epoch() const {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string pve_world::start_task(const std::string& node, const std::string& type,
                                  const std::string& id, const api_identity& who,
                                  std::chrono::milliseconds duration, std::function<status()> work,
                                  std::function<void()> on_abort) {
  task_state t;
  t.node = node;
  t.type = type;
  t.id = id;
  t.user = who.user;
  t.tokenid = who.tokenid;
  t.pid = next_pid++;
  t.pstart = static_cast<std::uint32_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(sim_clock::now() - boot_time_).count() /
          10 +
      123456);
  t.starttime = now_epoch();
  t.upid = "UPID:" + node + ":" + hex8(t.pid) + ":" + hex8(t.pstart) + ":" + hex8(t.starttime) +
           ":" + type + ":" + id + ":" + who.full() + ":";
  t.log.push_back("task started by " + who.full());
  t.on_abort = std::move(on_abort);
  const std::string upid = t.upid;
  tasks[upid] = std::move(t);
  task_order.push_back(upid);
  after(duration, [this, upid, work = std::move(work)] {
    auto it = tasks.find(upid);
    if (it == tasks.end() || !it->second.running) return;
    std::string error;
    if (auto injected = faults_.task_failure(it->second.type)) {
      error = *injected;
      if (auto abort = std::move(it->second.on_abort)) abort();
    } else if (auto st = work(); !st) {
      error = st.error().message;
    }
    auto& task = tasks[upid];
    task.running = false;
    task.endtime = now_epoch();
    if (error.empty()) {
      task.exitstatus = "OK";
      task.log.push_back("TASK OK");
    } else {
      task.exitstatus = error;
      task.log.push_back("TASK ERROR: " + error);
    }
  });
  return upid;
}

vm_state* pve_world::find_vm(int vmid) {
  auto it = vms.find(vmid);
  return it == vms.end() ? nullptr : &it->second;
}

result<vm_state*> pve_world::vm_on_node(const std::string& node, const std::string& vmid_text) {
  int vmid = 0;
  try {
    std::size_t used = 0;
    vmid = std::stoi(vmid_text, &used);
    if (used != vmid_text.size()) throw std::invalid_argument("vmid");
  } catch (...) {
    return make_error("param:vmid", "type check ('integer') failed - got '" + vmid_text + "'");
  }
  auto* vm = find_vm(vmid);
  if (!vm || vm->node != node)
    return make_error("500", "Configuration file 'nodes/" + node + "/qemu-server/" +
                                 std::to_string(vmid) + ".conf' does not exist");
  return vm;
}

bool pve_world::storage_on_host(const std::string& node, const std::string& storage) const {
  const auto* h = topo().find_host(node);
  if (!h) return false;
  return std::find(h->storages.begin(), h->storages.end(), storage) != h->storages.end();
}

std::filesystem::path pve_world::content_dir(const std::string& node, const std::string& storage,
                                             const std::string& content) const {
  return options_.data_dir / node / storage / content;
}

std::optional<std::filesystem::path> pve_world::volume_file(const std::string& node,
                                                            const std::string& volid) const {
  auto colon = volid.find(':');
  if (colon == std::string::npos) return std::nullopt;
  std::string storage = volid.substr(0, colon);
  std::string rest = volid.substr(colon + 1);
  auto slash = rest.find('/');
  if (slash == std::string::npos) return std::nullopt;
  std::string content = rest.substr(0, slash);
  std::string file = rest.substr(slash + 1);
  if (file.find('/') != std::string::npos || file == ".." || file.empty()) return std::nullopt;
  auto path = content_dir(node, storage, content) / file;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  return path;
}

std::string pve_world::new_mac() {
  char buf[32];
  auto r = [&] { return static_cast<unsigned>(rng_() & 0xFF); };
  std::snprintf(buf, sizeof buf, "BC:24:11:%02X:%02X:%02X", r(), r(), r());
  return buf;
}

std::string pve_world::new_uuid() {
  char buf[40];
  std::uniform_int_distribution<unsigned> d(0, 0xFFFF);
  std::snprintf(buf, sizeof buf, "%04x%04x-%04x-4%03x-%04x-%04x%04x%04x", d(rng_), d(rng_), d(rng_),
                d(rng_) & 0xFFF, (d(rng_) & 0x3FFF) | 0x8000, d(rng_), d(rng_), d(rng_));
  return buf;
}

int pve_world::next_free_vmid() const {
  int id = 100;
  while (vms.count(id)) ++id;
  return id;
}

pve_world::host_usage pve_world::usage_of(const std::string& node) const {
  host_usage u;
  const auto* h = topo().find_host(node);
  if (!h) return u;
  const std::uint64_t mib = 1ull << 20;
  const std::uint64_t base = 2048 * mib;  // the host's own use
  std::map<int, std::int64_t> numa_used;
  for (const auto& n : h->numa) numa_used[n.id] = static_cast<std::int64_t>(base / h->numa.size());
  u.mem = base;
  for (const auto& [id, vm] : vms) {
    if (vm.node != node || !vm.running) continue;
    ++u.running_vms;
    u.running_vcpus += vm_cpus(vm.config, h->logical_cpus());
    std::uint64_t mem = vm_memory_mib(vm.config) * mib;
    u.mem += mem;
    // numaN entries with hostnodes debit those nodes; the rest spreads evenly.
    std::uint64_t pinned = 0;
    for (int i = 0; i < 8; ++i) {
      auto it = vm.config.find("numa" + std::to_string(i));
      if (it == vm.config.end()) continue;
      auto hostnodes = property_value(it->second, "hostnodes", "cpus");
      auto m = property_value(it->second, "memory", "cpus");
      if (hostnodes.empty() || m.empty()) continue;
      auto ids = parse_cpu_list(hostnodes, ";");
      if (!ids || ids->empty()) continue;
      std::uint64_t bytes = std::stoull(m) * mib;
      for (int nid : *ids) numa_used[nid] += static_cast<std::int64_t>(bytes / ids->size());
      pinned += bytes;
    }
    if (pinned < mem && !h->numa.empty()) {
      for (const auto& n : h->numa)
        numa_used[n.id] += static_cast<std::int64_t>((mem - pinned) / h->numa.size());
    }
  }
  for (const auto& n : h->numa)
    u.numa_free.emplace_back(n.id, static_cast<std::int64_t>(n.memory) - numa_used[n.id]);
  const double guest_load = 0.1;  // a running guest keeps 10% of its vCPUs busy
  u.cpu = std::min(1.0, 0.01 + guest_load * u.running_vcpus / std::max(1, h->logical_cpus()));
  u.mem = std::min<std::uint64_t>(u.mem, h->memory);
  return u;
}

void pve_world::start_guest(vm_state& vm) {
  guest_boot boot;
  boot.vmid = vm.vmid;
  boot.node = vm.node;
  boot.name = vm.name();
  const auto* h = topo().find_host(vm.node);
  boot.cpus = vm_cpus(vm.config, h ? h->logical_cpus() : 0);
  boot.memory_mib = vm_memory_mib(vm.config);
  for (const auto& [key, value] : vm.config) {
    if (!is_drive_key(key) || !is_cdrom(value)) continue;
    auto volid = drive_volid(value);
    if (auto file = volume_file(vm.node, volid)) {
      boot.cdrom_iso = *file;
      break;
    }
  }
  if (h && !h->bridges.empty() && !h->bridges.front().cidr.empty()) {
    const auto& cidr = h->bridges.front().cidr;
    boot.ip = cidr.substr(0, cidr.rfind('.') + 1) + std::to_string(100 + vm.vmid % 150);
  }
  auto agent = vm.config.find("agent");
  boot.agent =
      agent != vm.config.end() && property_value(agent->second, "enabled", "enabled") == "1";
  auto desc = vm.config.find("description");
  if (desc != vm.config.end()) {
    auto p = desc->second.find("kube-join ");
    if (p != std::string::npos)
      boot.baked_join = desc->second.substr(p, desc->second.find('\n', p) - p);
  }
  guests_->start(std::move(boot));
}

// ---------------------------------------------------------------------------------------------
// Authentication

result<api_identity> pve_world::authenticate(const transport::http_request& request,
                                             const std::string& path, bool& needs_csrf_check) {
  needs_csrf_check = false;
  std::string auth(request.header("Authorization"));
  if (auto p = auth.find("PVEAPIToken");
      p != std::string::npos && (p == 0 || std::isspace(static_cast<unsigned char>(auth[p - 1])))) {
    std::string value = auth.substr(p + 11);
    if (!value.empty() && (value[0] == '=' || value[0] == ' ')) value = value.substr(1);
    if (auto semi = value.find(';'); semi != std::string::npos) value.resize(semi);
    value = url_decode(value, false);
    auto eq = value.rfind('=');
    if (eq == std::string::npos) return make_error("401", "invalid token value!");
    std::string id = value.substr(0, eq), secret = value.substr(eq + 1);
    auto it = token_secrets.find(id);
    if (it == token_secrets.end()) {
      auto bang = id.find('!');
      return make_error("401", bang == std::string::npos
                                   ? "invalid token value!"
                                   : "no such token '" + id.substr(bang + 1) + "' for user '" +
                                         id.substr(0, bang) + "'");
    }
    if (it->second != secret) return make_error("401", "invalid token value!");
    auto bang = id.find('!');
    return api_identity{id.substr(0, bang), id.substr(bang + 1)};
  }
  std::string ticket;
  std::string cookie(request.header("Cookie"));
  if (auto p = cookie.find("PVEAuthCookie="); p != std::string::npos) {
    ticket = cookie.substr(p + 14);
    if (auto semi = ticket.find(';'); semi != std::string::npos) ticket.resize(semi);
  } else if (auth.rfind("PVEAuthCookie=", 0) == 0) {
    ticket = auth.substr(14);
  }
  if (ticket.empty()) return make_error("401", "No ticket");
  ticket = url_decode(ticket, false);
  auto it = tickets.find(ticket);
  if (it == tickets.end() ||
      std::chrono::system_clock::now() - it->second.issued > std::chrono::hours(2))
    return make_error("401", "permission denied - invalid PVE ticket");
  // Browser form uploads skip the CSRF check.
  needs_csrf_check = request.method != "GET" && path.find("/upload") == std::string::npos;
  if (needs_csrf_check && std::string(request.header("CSRFPreventionToken")) != it->second.csrf)
    return make_error("401", "Permission denied - invalid csrf token");
  return api_identity{it->second.user, ""};
}

api_reply pve_world::post_ticket(api_call& c) {
  auto username = c.params.get_or("username", "");
  auto password = c.params.get_or("password", "");
  if (username.find('@') == std::string::npos && c.params.has("realm"))
    username += "@" + c.params.get_or("realm", "");
  bool ok = false;
  if (auto it = passwords.find(username); it != passwords.end() && it->second == password)
    ok = true;
  if (auto it = tickets.find(password);
      it != tickets.end() && it->second.user == username &&
      std::chrono::system_clock::now() - it->second.issued < std::chrono::hours(2))
    ok = true;  // renewal with a valid ticket
  if (!ok) return api_reply::fail(401, "authentication failure");
  const std::string hex_time = hex8(static_cast<std::uint64_t>(now_epoch()));
  std::string ticket = "PVE:" + username + ":" + hex_time + "::" + random_base64(256);
  std::string csrf = hex_time + ":" + random_base64(32);
  csrf.erase(std::remove(csrf.begin(), csrf.end(), '='), csrf.end());
  tickets[ticket] = {username, csrf, std::chrono::system_clock::now()};
  json::object cap = {
      {"vms", json::object{{"VM.Allocate", 1}, {"VM.Clone", 1}, {"VM.Config.CPU", 1}}},
      {"nodes", json::object{{"Sys.Audit", 1}}}};
  return api_reply::ok(json::object{{"username", username},
                                    {"ticket", ticket},
                                    {"CSRFPreventionToken", csrf},
                                    {"cap", cap},
                                    {"clustername", topo().cluster_name}});
}

api_reply pve_world::get_ticket(api_call&) {
  return api_reply::ok(nullptr);
}

api_reply pve_world::get_domains(api_call&) {
  return api_reply::ok(json::array{
      json::object{
          {"realm", "pam"}, {"type", "pam"}, {"comment", "Linux PAM standard authentication"}},
      json::object{
          {"realm", "pve"}, {"type", "pve"}, {"comment", "Proxmox VE authentication server"}}});
}

// ---------------------------------------------------------------------------------------------
// Dispatch

transport::http_response pve_world::render(const api_reply& r) const {
  transport::http_response res;
  res.status = r.status;
  json::object body;
  body["data"] = r.status == 200 ? r.data : json::value(nullptr);
  if (r.total) body["total"] = *r.total;
  if (r.status != 200) {
    if (!r.errors.empty()) body["errors"] = r.errors;
    if (!r.message.empty()) body["message"] = r.message + "\n";
  }
  res.body = json::serialize(body);
  res.headers = {{"Content-Type", "application/json;charset=UTF-8"},
                 {"Server", "pve-api-daemon/3.0"},
                 {"Cache-Control", "max-age=0"},
                 {"Pragma", "no-cache"},
                 {"Expires", "Thu, 01 Jan 1970 00:00:00 GMT"}};
  if (r.status != 200) {
    // Proxmox puts the message (first line) in the status line's reason phrase.
    res.reason = r.message.substr(0, r.message.find('\n'));
  }
  return res;
}

void pve_world::handle(const transport::http_request& request,
                       std::function<void(transport::http_response)> reply) {
  std::string raw_path(request.path());
  if (raw_path.rfind("/sim/v1/", 0) == 0 || raw_path == "/sim/v1") {
    handle_sim(request, std::move(reply));
    return;
  }
  auto finish = [this, reply](const std::string& method, const std::string& templ, api_reply r,
                              std::chrono::milliseconds delay) {
    ++status_counts[{method, templ}][r.status];
    auto res = render(r);
    if (delay.count() > 0) {
      after(delay, [reply, res = std::move(res)]() mutable { reply(std::move(res)); });
    } else {
      reply(std::move(res));
    }
  };
  const std::string method = request.method;
  if (raw_path.rfind("/api2/", 0) != 0) {
    ++request_counts[{method, "unmatched"}];
    finish(method, "unmatched", api_reply::fail(501, "no such uri"), {});
    return;
  }
  std::string rest = raw_path.substr(6);
  auto slash = rest.find('/');
  std::string format = rest.substr(0, slash);
  if (format != "json" || slash == std::string::npos) {
    ++request_counts[{method, "unmatched"}];
    finish(method, "unmatched", api_reply::fail(501, "no such uri"), {});
    return;
  }
  std::string rel = rest.substr(slash);
  auto segments = split_path(rel);
  api_call call;
  call.method = method;
  call.request = &request;
  const route* matched = nullptr;
  for (const auto& r : routes()) {
    if (r.method != method) continue;
    if (match_route(r, segments, call.path)) {
      matched = &r;
      break;
    }
  }
  const std::string templ = matched ? matched->path : "unmatched";
  ++request_counts[{method, templ}];
  if (!matched) {
    finish(method, templ,
           api_reply::fail(501, "Method '" + method + " " + rel + "' not implemented"), {});
    return;
  }
  call.path_template = templ;
  const auto latency =
      std::chrono::milliseconds(static_cast<std::int64_t>(faults_.added_latency_ms(method, templ)));

  if (!matched->public_path) {
    bool csrf = false;
    auto who = authenticate(request, rel, csrf);
    if (!who) {
      auto delay = duration("auth_failure_delay") + latency;
      finish(method, templ, api_reply::fail(401, who.error().message), delay);
      return;
    }
    call.who = *who;
  }

  // Parameters: body first, then the query string over it, then the path.
  const bool is_upload = templ == "/nodes/{node}/storage/{storage}/upload";
  std::string content_type(request.header("Content-Type"));
  if (!request.body.empty()) {
    if (method == "GET" || method == "DELETE") {
      finish(method, templ, api_reply::fail(501, "Unexpected content for method '" + method + "'"),
             latency);
      return;
    }
    if (!is_upload && request.body.size() > 512 * 1024) {
      finish(method, templ, api_reply::fail(501, "for data too large"), latency);
      return;
    }
    if (content_type.rfind("application/json", 0) == 0) {
      if (auto st = parse_json_object(request.body, call.params); !st) {
        finish(method, templ, api_reply::fail(400, st.error().message), latency);
        return;
      }
    } else if (content_type.rfind("multipart/form-data", 0) != 0) {
      parse_form(request.body, call.params);
    }
  }
  request_params query;
  parse_form(request.query(), query);
  for (const auto& [k, v] : query.items()) call.params.erase(k);
  for (const auto& [k, v] : query.items()) call.params.add(k, v);
  for (const auto& [k, v] : call.path) {
    auto given = call.params.get(k);
    if (given && *given != v) {
      finish(method, templ,
             api_reply::fail(
                 400, "duplicate parameter (already defined in URI) with conflicting values!"),
             latency);
      return;
    }
  }

  if (auto node = call.path.find("node"); node != call.path.end()) {
    if (!host_exists(node->second)) {
      finish(method, templ,
             api_reply::fail(500, "hostname lookup '" + node->second +
                                      "' failed - failed to get address info for: " + node->second +
                                      ": Name or service not known"),
             latency);
      return;
    }
    if (auto offline = faults_.host_offline(node->second)) {
      finish(method, templ,
             api_reply::fail(
                 *offline,
                 *offline == 595
                     ? "Errors during connection establishment, proxy handshake: No route to host"
                     : "Connection timed out"),
             latency);
      return;
    }
  }
  if (auto injected = faults_.request_error(method, templ)) {
    finish(method, templ, api_reply::fail(injected->status, injected->message), latency);
    return;
  }
  api_reply r = (this->*(matched->fn))(call);
  finish(method, templ, std::move(r), latency);
}

}  // namespace kp::sim::pve
