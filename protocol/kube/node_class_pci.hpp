#pragma once
// A ProxmoxNodeClass's pciDevices as placement's device needs, checked once for everyone who
// reads them: the node class status (Ready=False naming the field), provisioning (which hosts can
// offer the resource) and the launch (the hostpciN entries of the config write).
#include <vector>

#include "core/placement/pci_devices.hpp"
#include "core/result.hpp"
#include "protocol/kube/proxmox_v1alpha1.hpp"

namespace kp::kube {

// Proxmox's hostpci0..hostpci15: no VM takes more devices than this.
inline constexpr int max_pci_devices = 16;

// Each entry with its count (absent = 1). Errors ("invalid_node_class") name the field and the
// value: a mapping that is no Proxmox configuration id, a resourceName that is no qualified
// extended resource name (domain/name, the domain outside kubernetes.io), a count below 1, an
// mdev type Proxmox refuses, or more than max_pci_devices devices in all.
result<std::vector<placement::pci_device_need>> pci_device_needs(const proxmox_node_class& nc);

}  // namespace kp::kube
