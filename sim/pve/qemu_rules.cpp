#include "sim/pve/qemu_rules.hpp"

#include <cctype>

namespace kp::sim::pve {

namespace json = boost::json;

std::string lock_timeout(int vmid) {
  return "can't lock file '/var/lock/qemu-server/lock-" + std::to_string(vmid) +
         ".conf' - got timeout";
}

std::optional<api_reply> check_writable(const vm_state& vm, const api_call& c) {
  bool skiplock = c.who.is_root() && c.params.get_bool("skiplock").value_or(false);
  if (!vm.lock().empty() && !skiplock)
    return api_reply::fail(500, "VM is locked (" + vm.lock() + ")");
  if (vm.clone_readers > 0) return api_reply::fail(500, lock_timeout(vm.vmid));
  return std::nullopt;
}

bool valid_dns_name(const std::string& s) {
  if (s.empty() || s.size() > 255) return false;
  std::size_t start = 0;
  while (start <= s.size()) {
    auto dot = s.find('.', start);
    std::string label = s.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (label.empty() || !std::isalnum(static_cast<unsigned char>(label.front())) ||
        !std::isalnum(static_cast<unsigned char>(label.back())))
      return false;
    for (char ch : label)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-') return false;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return true;
}

std::string current_digest(const vm_state& vm) {
  return sha1_hex(render_config_file(vm.config, vm.pending, vm.pending_delete));
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : s) {
    if (ch == ',' || ch == ';' || ch == ' ' || ch == '\t') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(ch);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

json::object vm_status_entry(const world_model& world, const vm_state& vm) {
  const auto* h = world.topo().find_host(vm.node);
  std::int64_t maxmem = static_cast<std::int64_t>(vm_memory_mib(vm.config)) << 20;
  std::int64_t maxdisk = 0;
  for (const auto& [k, v] : vm.config)
    if (is_drive_key(k) && !is_cdrom(v) && k.rfind("unused", 0) != 0)
      maxdisk += static_cast<std::int64_t>(drive_size(v));
  json::object o{
      {"vmid", vm.vmid},
      {"name", vm.name()},
      {"status", vm.running ? "running" : "stopped"},
      {"cpus", vm_cpus(vm.config, h ? h->logical_cpus() : 0)},
      {"maxmem", maxmem},
      {"mem", vm.running ? maxmem / 2 : 0},
      {"maxdisk", maxdisk},
      {"disk", 0},
      {"cpu", vm.running ? 0.1 : 0.0},
      {"netin", 0},
      {"netout", 0},
      {"diskread", 0},
      {"diskwrite", 0},
      {"uptime",
       vm.running
           ? std::chrono::duration_cast<std::chrono::seconds>(sim_clock::now() - vm.started).count()
           : 0}};
  if (vm.running) o["pid"] = vm.pid;
  if (vm.is_template()) o["template"] = 1;
  if (!vm.lock().empty()) o["lock"] = vm.lock();
  if (auto t = vm.config.find("tags"); t != vm.config.end()) o["tags"] = t->second;
  return o;
}

}  // namespace kp::sim::pve
