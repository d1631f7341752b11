#pragma once
// PCI devices from Proxmox resource mappings, between Proxmox's formats and placement's counts,
// as pure functions: the mappings /cluster/mapping/pci lists, the devices a VM's hostpciN entries
// hold, and the hostpciN entries the launch's one config write gives a new VM.
#include <map>
#include <string>
#include <vector>

#include "core/placement/pci_devices.hpp"
#include "core/result.hpp"
#include "protocol/proxmox/api_types.hpp"
#include "protocol/proxmox/vm_config.hpp"
#include "protocol/region_messages.hpp"

namespace kp::actors::region {

// Each mapping's devices per host: one per `map` entry that names its node (an entry Proxmox
// lists without `node=` counts for no host).
std::vector<placement::pci_mapping> pci_mappings_of(
    const std::vector<proxmox::pci_resource_mapping>& listed);

// The mapped devices a VM config holds: one of mapping <id> per `hostpciN: mapping=<id>,...`
// (raw `host=` entries name no mapping and count for none).
placement::pci_counts mapped_pci_devices(const proxmox::vm_config& config);

// The devices a launch asks for, per mapping.
placement::pci_counts pci_needs_of(const std::vector<protocol::pci_device>& devices);

// `count` entries per device, each the next hostpciN `base` (the template's config, or a clone's
// before its config write) leaves free: `mapping=<id>[,pcie=1][,mdev=<type>]`. Error
// ("invalid_request") when hostpci15, Proxmox's last, would be passed.
result<std::map<std::string, std::string>> hostpci_entries(
    const proxmox::vm_config& base, const std::vector<protocol::pci_device>& devices);

}  // namespace kp::actors::region
