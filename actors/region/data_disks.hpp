#pragma once
// A node class's additionalDisks as drives of the launch's one config write, as a pure function:
// Proxmox allocates `<storage>:<GiB>` as a new volume when the config is written, so the disks
// cost no request of their own.
#include <map>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "protocol/proxmox/vm_config.hpp"
#include "protocol/region_messages.hpp"

namespace kp::actors::region {

// Each disk takes the next scsiN after the highest scsi drive `base` (the template's config, or
// a clone's before its config write) has, in order. A disk without a storage goes where the boot
// disk (boot_disk) is. Options: cache=<mode>, discard=on, iothread=1, ssd=1 when asked for.
// Errors ("invalid_request") when scsi30, Proxmox's last, would be passed or no storage is known.
result<std::map<std::string, proxmox::drive>> data_disk_drives(
    const proxmox::vm_config& base, const std::vector<protocol::data_disk>& disks);

}  // namespace kp::actors::region
