#include "actors/provisioning/pci_offerings.hpp"

#include <algorithm>

#include "core/model/labels.hpp"
#include "core/placement/pci_devices.hpp"
#include "protocol/kube/node_class_pci.hpp"

namespace kp::actors::provisioning {

std::string offer_pci_devices(model::nodepool& pool, const kube::proxmox_node_class& node_class,
                              const std::vector<instance_types::zone_capacity>& hosts) {
  if (node_class.spec.pci_devices.empty()) return "";
  const std::string who = "ProxmoxNodeClass \"" + node_class.metadata.name + "\"";
  auto needs = kube::pci_device_needs(node_class);
  if (!needs) return who + ": " + needs.error().message;
  for (const auto& [name, n] : placement::pci_resources(*needs))
    pool.device_capacity.set(name, model::quantity::from_units(n));
  if (hosts.empty()) return "";
  const auto need = placement::pci_needs(*needs);
  std::vector<std::string> zones;
  std::string lacking;
  for (const auto& h : hosts) {
    if (!h.schedulable) continue;
    if (placement::pci_fits(need, h.free_pci)) {
      if (std::find(zones.begin(), zones.end(), h.zone) == zones.end()) zones.push_back(h.zone);
      continue;
    }
    lacking +=
        (lacking.empty() ? "" : "; ") + h.zone + ": " + placement::pci_shortfall(need, h.free_pci);
  }
  if (zones.empty())
    return who + ": no host has its PCI devices free (" +
           (lacking.empty() ? std::string("no host online") : lacking) + ")";
  std::sort(zones.begin(), zones.end());
  pool.template_.requirements.push_back(
      {std::string(model::labels::zone), model::selector_operator::in, zones, std::nullopt});
  return "";
}

}  // namespace kp::actors::provisioning
