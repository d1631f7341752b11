#include "actors/region/pci_passthrough.hpp"

#include "protocol/proxmox/property_string.hpp"

namespace kp::actors::region {
namespace {

constexpr int hostpci_slots = 16;  // hostpci0..hostpci15

std::string hostpci_key(int i) {
  return "hostpci" + std::to_string(i);
}

}  // namespace

std::vector<placement::pci_mapping> pci_mappings_of(
    const std::vector<proxmox::pci_resource_mapping>& listed) {
  std::vector<placement::pci_mapping> out;
  for (const auto& m : listed) {
    placement::pci_mapping p;
    p.id = m.id;
    p.mdev = m.mdev;
    for (const auto& entry : m.map) {
      auto props = proxmox::parse_property_string(entry);
      if (!props) continue;
      auto node = proxmox::find_property(*props, "node");
      if (node && !node->empty()) ++p.devices[*node];
    }
    out.push_back(std::move(p));
  }
  return out;
}

placement::pci_counts mapped_pci_devices(const proxmox::vm_config& config) {
  placement::pci_counts out;
  for (int i = 0; i < hostpci_slots; ++i) {
    auto it = config.raw.find(hostpci_key(i));
    if (it == config.raw.end()) continue;
    // A bare value is the `host` (a raw PCI address), as qemu-server reads it.
    auto props = proxmox::parse_property_string(it->second, "host");
    if (!props) continue;
    if (auto mapping = proxmox::find_property(*props, "mapping"); mapping && !mapping->empty())
      ++out[*mapping];
  }
  return out;
}

placement::pci_counts pci_needs_of(const std::vector<protocol::pci_device>& devices) {
  placement::pci_counts out;
  for (const auto& d : devices) out[d.mapping] += d.count;
  return out;
}

result<std::map<std::string, std::string>> hostpci_entries(
    const proxmox::vm_config& base, const std::vector<protocol::pci_device>& devices) {
  std::map<std::string, std::string> out;
  int next = 0;
  for (const auto& d : devices) {
    proxmox::property_list props{{"mapping", d.mapping}};
    if (d.pcie) props.emplace_back("pcie", "1");
    if (!d.mdev.empty()) props.emplace_back("mdev", d.mdev);
    const auto value = proxmox::format_property_string(props);
    for (int n = 0; n < d.count; ++n) {
      while (next < hostpci_slots && base.raw.count(hostpci_key(next)) != 0) ++next;
      if (next >= hostpci_slots) {
        return make_error("invalid_request", "no hostpci slot left for PCI mapping " + d.mapping +
                                                 " (hostpci" + std::to_string(hostpci_slots - 1) +
                                                 " is the last)");
      }
      out[hostpci_key(next++)] = value;
    }
  }
  return out;
}

}  // namespace kp::actors::region
