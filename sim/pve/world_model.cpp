#include "sim/pve/world_model.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <set>

#include "sim/pve/guest_fleet.hpp"
#include "sim/pve/number_text.hpp"
#include "sim/pve/parameter_checks.hpp"
#include "sim/pve/property_string.hpp"

namespace kp::sim::pve {

namespace {
// Runs a timer's work; what it throws is reported, not lost in the io loop.
void run_reported(const std::function<void()>& work) {
  try {
    work();
  } catch (const std::exception& e) {
    std::cerr << "pve-sim: a timer failed: " << e.what() << std::endl;
  } catch (...) {
    std::cerr << "pve-sim: a timer failed with an unknown exception" << std::endl;
  }
}
}  // namespace

world_model::world_model(boost::asio::io_context& io, simulator_options options)
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
  if (options_.faults) {
    faults_.replace(*options_.faults);
  } else if (!t.faults_yaml.empty()) {
    if (auto plan = parse_fault_plan(t.faults_yaml)) faults_.replace(*plan);
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

world_model::~world_model() = default;

double world_model::duration_ms(const std::string& name) const {
  auto it = options_.topo.durations.find(name);
  double ms = it == options_.topo.durations.end() ? 100.0 : it->second;
  return ms * options_.time_scale;
}

std::chrono::milliseconds world_model::duration(const std::string& name) const {
  return std::chrono::milliseconds(static_cast<std::int64_t>(duration_ms(name)));
}

void world_model::after(std::chrono::milliseconds delay, std::function<void()> work) {
  std::weak_ptr<int> alive = alive_;
  if (delay.count() <= 0) {
    boost::asio::post(io_, [alive, work = std::move(work)] {
      if (!alive.expired()) run_reported(work);
    });
    return;
  }
  auto timer = std::make_shared<boost::asio::steady_timer>(io_, delay);
  timer->async_wait([timer, alive, work = std::move(work)](const boost::system::error_code& ec) {
    if (!ec && !alive.expired()) run_reported(work);
  });
}

std::int64_t world_model::now_epoch() const {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string world_model::new_mac() {
  char buf[32];
  auto r = [&] { return static_cast<unsigned>(rng_() & 0xFF); };
  std::snprintf(buf, sizeof buf, "BC:24:11:%02X:%02X:%02X", r(), r(), r());
  return buf;
}

std::string world_model::new_uuid() {
  char buf[40];
  std::uniform_int_distribution<unsigned> d(0, 0xFFFF);
  std::snprintf(buf, sizeof buf, "%04x%04x-%04x-4%03x-%04x-%04x%04x%04x", d(rng_), d(rng_), d(rng_),
                d(rng_) & 0xFFF, (d(rng_) & 0x3FFF) | 0x8000, d(rng_), d(rng_), d(rng_));
  return buf;
}

vm_state* world_model::find_vm(int vmid) {
  auto it = vms.find(vmid);
  return it == vms.end() ? nullptr : &it->second;
}

result<vm_state*> world_model::vm_on_node(const std::string& node, const std::string& vmid_text) {
  auto vmid = check_vmid("vmid", vmid_text);
  if (!vmid) return vmid.error();
  auto* vm = find_vm(*vmid);
  if (!vm || vm->node != node)
    return make_error("500", "Configuration file 'nodes/" + node + "/qemu-server/" +
                                 std::to_string(*vmid) + ".conf' does not exist");
  return vm;
}

int world_model::next_free_vmid() const {
  int id = 100;
  while (vms.count(id)) ++id;
  return id;
}

bool world_model::host_stats_fresh(const std::string& node) const {
  auto since = faults_.offline_since(node);
  return !since || sim_clock::now() - *since < duration("rrd_expiry");
}

bool world_model::vm_has_stats(const vm_state& vm) const {
  return sim_clock::now() - vm.created >= duration("rrd_lag") && host_stats_fresh(vm.node);
}

status world_model::reach_node(const std::string& node) const {
  if (!host_exists(node))
    return make_error("500", "hostname lookup '" + node +
                                 "' failed - failed to get address info for: " + node +
                                 ": Name or service not known");
  if (auto offline = faults_.host_offline(node))
    return make_error(
        std::to_string(*offline),
        *offline == 595
            ? "Errors during connection establishment, proxy handshake: No route to host"
            : "Connection timed out");
  return {};
}

bool world_model::storage_on_host(const std::string& node, const std::string& storage) const {
  const auto* h = topo().find_host(node);
  if (!h) return false;
  return std::find(h->storages.begin(), h->storages.end(), storage) != h->storages.end();
}

std::filesystem::path world_model::content_dir(const std::string& node, const std::string& storage,
                                               const std::string& content) const {
  return options_.data_dir / node / storage / content;
}

std::optional<std::filesystem::path> world_model::volume_file(const std::string& node,
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

std::uint64_t world_model::storage_used(const std::string& node, const std::string& storage) const {
  const auto* st = topo().find_storage(storage);
  const bool shared = st != nullptr && st->shared;
  std::set<std::string> counted;
  std::uint64_t used = 0;
  for (const auto& [id, vm] : vms) {
    if (vm.node != node && !shared) continue;
    for (const auto* config : {&vm.config, &vm.pending}) {
      for (const auto& [key, value] : *config) {
        if (!is_drive_key(key) || is_cdrom(value)) continue;
        auto volid = drive_volid(value);
        if (volid.rfind(storage + ":", 0) != 0 || volid.find('/') != std::string::npos ||
            volid.find("cloudinit") != std::string::npos)
          continue;
        if (counted.insert(volid).second) used += drive_size(value);
      }
    }
  }
  return used;
}

host_usage world_model::usage_of(const std::string& node) const {
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
      auto m = parse_number<std::uint64_t>(property_value(it->second, "memory", "cpus"));
      if (hostnodes.empty() || !m) continue;
      auto ids = parse_cpu_list(hostnodes, ";");
      if (!ids || ids->empty()) continue;
      std::uint64_t bytes = *m * mib;
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

void world_model::start_guest(vm_state& vm,
                              std::map<std::string, std::int64_t> extended_resources) {
  guest_boot boot;
  boot.vmid = vm.vmid;
  boot.node = vm.node;
  boot.name = vm.name();
  const auto* h = topo().find_host(vm.node);
  boot.cpus = vm_cpus(vm.config, h ? h->logical_cpus() : 0);
  boot.memory_mib = vm_memory_mib(vm.config);
  boot.extended_resources = std::move(extended_resources);
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

}  // namespace kp::sim::pve
