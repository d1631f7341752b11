#pragma once
// PCI devices from Proxmox resource mappings (/cluster/mapping/pci) as placement counts them: how
// many devices of each mapping a host has, how many its VMs hold (one per `hostpciN:
// mapping=<id>`), what is free, and which hosts can still give a VM the devices it asks for.
// Pure: the region builds these from its inventory, provisioning reads them from the hosts'
// reports.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kp::placement {

class host_state;

// Mapping id -> number of devices.
using pci_counts = std::map<std::string, int>;

// One Proxmox PCI resource mapping: how many devices it maps on each host (one per `map` entry).
struct pci_mapping {
  std::string id;
  bool mdev = false;                   // mediated devices (vGPU, GVT-g) may be split
  std::map<std::string, int> devices;  // host -> devices of this mapping there
  friend bool operator==(const pci_mapping&, const pci_mapping&) = default;
};

// What a node class gives each of its VMs: `count` devices of `mapping`, which the guest's
// device plugin advertises as the extended resource `resource_name`.
struct pci_device_need {
  std::string mapping;
  std::string resource_name;  // nvidia.com/gpu
  int count = 1;
  bool pcie = false;  // hostpciN pcie=1 (q35 machines)
  std::string mdev;   // mediated device type, "" = the whole device
  friend bool operator==(const pci_device_need&, const pci_device_need&) = default;
};

// Devices per mapping the needs add up to (two entries of one mapping add).
pci_counts pci_needs(const std::vector<pci_device_need>& needs);

// Extended resources per name the needs give a VM (quantity = count, added per name).
std::map<std::string, std::int64_t> pci_resources(const std::vector<pci_device_need>& needs);

// Host -> devices of each mapping there.
std::map<std::string, pci_counts> pci_devices_by_host(const std::vector<pci_mapping>& mappings);

// Every mapping of `need` has at least that many devices in `free`.
bool pci_fits(const pci_counts& need, const pci_counts& free);

// Why `free` cannot hold `need`, for a person ("1 of 2 wanted devices of PCI mapping gpu
// free"); "" when it can.
std::string pci_shortfall(const pci_counts& need, const pci_counts& free);

// Host -> free devices of each mapping it has (its devices less what its VMs and reservations
// hold, never below 0): the inventory's answer to "which devices are left".
std::map<std::string, pci_counts> free_pci_devices(const std::vector<host_state>& hosts);

}  // namespace kp::placement
