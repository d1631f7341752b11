#include "actors/region/inventory.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <vector>

#include "core/ownership/vm_mark.hpp"
#include "protocol/proxmox/property_string.hpp"

namespace kp::actors::region {

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
    auto plan = ownership::description_affinity(*config.description);
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

std::int64_t creation_time(const proxmox::vm_config& config) {
  auto it = config.raw.find("meta");
  if (it == config.raw.end()) return 0;
  auto props = proxmox::parse_property_string(it->second);
  if (!props) return 0;
  auto ctime = proxmox::find_property(*props, "ctime");
  if (!ctime) return 0;
  std::int64_t seconds = 0;
  auto [end, ec] = std::from_chars(ctime->data(), ctime->data() + ctime->size(), seconds);
  if (ec != std::errc{} || end != ctime->data() + ctime->size()) return 0;
  return seconds;
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
