#include "actors/region/inventory.hpp"

#include <algorithm>
#include <string_view>
#include <vector>

#include "actors/region/ownership_mark.hpp"
#include "protocol/proxmox/property_string.hpp"

namespace kp::actors::region {
namespace {

// "0-7,16-23,8-15" in the order written; empty on garbage.
std::vector<unsigned> ordered_cpu_list(std::string_view text) {
  std::vector<unsigned> out;
  while (!text.empty()) {
    auto comma = text.find(',');
    auto piece = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    auto parsed = proxmox::parse_cpu_list(piece);
    if (!parsed) return {};
    out.insert(out.end(), parsed->begin(), parsed->end());
  }
  return out;
}

}  // namespace

placement::vm_allocation allocation_from_config(int vmid, const proxmox::vm_config& config,
                                                bool managed) {
  placement::vm_allocation a;
  a.vmid = vmid;
  a.vcpus = static_cast<int>(config.sockets.value_or(1) * config.cores.value_or(1));
  a.memory_bytes = static_cast<std::int64_t>(config.memory_mib.value_or(512)) << 20;
  a.managed = managed;
  if (config.affinity && !config.affinity->empty()) {
    for (unsigned c : *config.affinity) a.pinned.insert(static_cast<int>(c));
  } else if (config.description) {
    auto plan = description_affinity(*config.description);
    if (!plan.empty()) {
      if (auto parsed = placement::cpu_set::parse(plan)) a.pinned = *parsed;
    }
  }
  for (const auto& [index, node] : config.numa_nodes) {
    (void)index;
    if (node.cpus.empty() || node.hostnodes.empty()) continue;
    placement::numa_binding b;
    b.first_guest_cpu = static_cast<int>(node.cpus.front());
    b.last_guest_cpu = static_cast<int>(node.cpus.back());
    b.host_node = static_cast<int>(node.hostnodes.front());
    b.memory_bytes = static_cast<std::int64_t>(node.memory_mib.value_or(0)) << 20;
    a.numa.push_back(b);
  }
  return a;
}

std::optional<placement::host_topology> topology_from_capacity_vm(const proxmox::vm_config& config,
                                                                  int sockets,
                                                                  int cores_per_socket) {
  auto raw = config.raw.find("affinity");
  if (raw == config.raw.end() || config.numa_nodes.empty()) return std::nullopt;
  // The order matters (guest vCPU i = i-th listed CPU) and the typed field is sorted, so the
  // raw text is read here.
  auto guest_to_host = ordered_cpu_list(raw->second);
  if (guest_to_host.empty()) return std::nullopt;
  placement::host_topology t;
  t.sockets = std::max(1, sockets);
  t.cores_per_socket = std::max(1, cores_per_socket);
  int cpus = static_cast<int>(guest_to_host.size());
  t.threads_per_core = std::max(1, cpus / (t.sockets * t.cores_per_socket));
  for (const auto& [index, node] : config.numa_nodes) {
    (void)index;
    if (node.hostnodes.empty()) return std::nullopt;
    placement::numa_node n;
    n.id = static_cast<int>(node.hostnodes.front());
    for (unsigned guest : node.cpus) {
      if (guest >= guest_to_host.size()) return std::nullopt;
      n.cpus.insert(static_cast<int>(guest_to_host[guest]));
    }
    // The daemon writes (GiB - 1) x 1024 MiB per node; that is what may be used.
    n.memory_bytes = static_cast<std::int64_t>(node.memory_mib.value_or(0)) << 20;
    t.numa_nodes.push_back(n);
  }
  t.reserved_memory_bytes = 0;  // already taken off by the daemon
  return t;
}

std::int64_t creation_time(const proxmox::vm_config& config) {
  auto it = config.raw.find("meta");
  if (it == config.raw.end()) return 0;
  auto props = proxmox::parse_property_string(it->second);
  if (!props) return 0;
  auto ctime = proxmox::find_property(*props, "ctime");
  if (!ctime) return 0;
  try {
    return std::stoll(*ctime);
  } catch (...) {
    return 0;
  }
}

std::optional<std::string> boot_disk(const proxmox::vm_config& config) {
  for (const char* key : {"virtio0", "scsi0", "sata0", "ide0"}) {
    if (config.drives.count(key) != 0) return std::string(key);
  }
  return std::nullopt;
}

std::uint64_t drive_size_gib(const proxmox::drive& d) {
  auto size = d.option("size");
  if (!size || size->empty()) return 0;
  std::string_view s = *size;
  char unit = s.back();
  std::uint64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') break;
    n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  switch (unit) {
    case 'T':
      return n * 1024;
    case 'G':
      return n;
    case 'M':
      return (n + 1023) / 1024;
    case 'K':
      return (n + 1024 * 1024 - 1) / (1024 * 1024);
    default:
      return (n + (1ull << 30) - 1) >> 30;
  }
}

}  // namespace kp::actors::region
