#include "core/placement/pci_devices.hpp"

#include "core/placement/host.hpp"

namespace kp::placement {

pci_counts pci_needs(const std::vector<pci_device_need>& needs) {
  pci_counts out;
  for (const auto& n : needs) out[n.mapping] += n.count;
  return out;
}

std::map<std::string, std::int64_t> pci_resources(const std::vector<pci_device_need>& needs) {
  std::map<std::string, std::int64_t> out;
  for (const auto& n : needs) out[n.resource_name] += n.count;
  return out;
}

std::map<std::string, pci_counts> pci_devices_by_host(const std::vector<pci_mapping>& mappings) {
  std::map<std::string, pci_counts> out;
  for (const auto& m : mappings)
    for (const auto& [host, n] : m.devices)
      if (n > 0) out[host][m.id] += n;
  return out;
}

bool pci_fits(const pci_counts& need, const pci_counts& free) {
  for (const auto& [mapping, n] : need) {
    if (n <= 0) continue;
    auto it = free.find(mapping);
    if (it == free.end() || it->second < n) return false;
  }
  return true;
}

std::string pci_shortfall(const pci_counts& need, const pci_counts& free) {
  std::string out;
  for (const auto& [mapping, n] : need) {
    auto it = free.find(mapping);
    const int have = it == free.end() ? 0 : it->second;
    if (n <= 0 || have >= n) continue;
    if (!out.empty()) out += ", ";
    out += std::to_string(have) + " of " + std::to_string(n) + " wanted devices of PCI mapping " +
           mapping + " free";
  }
  return out;
}

std::map<std::string, pci_counts> free_pci_devices(const std::vector<host_state>& hosts) {
  std::map<std::string, pci_counts> out;
  for (const auto& h : hosts) {
    auto free = h.free_pci();
    if (!free.empty()) out[h.name()] = std::move(free);
  }
  return out;
}

}  // namespace kp::placement
