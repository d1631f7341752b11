#pragma once
// Internal to sim/pve: PCI resource mappings (/cluster/mapping/pci, from the topology) and the
// PCI devices VMs pass through: the hostpciN format check at config time, the choice of devices
// at start as qemu-server makes it (and its refusals when they are busy), and the extended
// resources a guest's Node advertises for them.
#include <boost/json/array.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "sim/pve/api_call.hpp"
#include "sim/pve/world_model.hpp"

namespace kp::sim::pve {

class api_router;

class pci_mapping_api {
 public:
  explicit pci_mapping_api(world_model& world) : world_(world) {}
  void add_routes(api_router& router);

  // Config-time check of `hostpciN: <value>`: the property-string format, and raw host
  // devices for root only. Errors are "param:<key>" or a 500.
  status check_hostpci(const std::string& key, const std::string& value,
                       const api_identity& who) const;
  // The devices the VM's hostpciN entries take on its node when it starts, chosen as
  // qemu-server does; an error is the start task's ("PCI device '...' already in use by
  // VMID '...'", "could not find a free device for 'hostpci0'", ...).
  result<std::vector<held_pci_device>> choose_devices(const vm_state& vm) const;
  // What the guest's Node advertises for held devices: one unit of the mapping's resource per
  // device.
  std::map<std::string, std::int64_t> advertised_resources(
      const std::string& node, const std::vector<held_pci_device>& held) const;
  // The mapped devices of a host and the VM using each, for /sim/v1/hosts.
  boost::json::array devices_on(const std::string& node) const;

 private:
  api_reply list(api_call& c);
  api_reply get(api_call& c);
  // The running VM on `node` holding the device at `path`, or 0.
  int holder(const std::string& node, const std::string& path, int except_vmid) const;
  std::string digest() const;

  world_model& world_;
};

}  // namespace kp::sim::pve
