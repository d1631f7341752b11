#pragma once
// A VM's configuration as Proxmox keeps it (key -> raw text value) and the rules around it:
// which keys exist in the schema, how values are typed in JSON replies, the digest of the
// config file, disks, and what a running VM can take without a restart.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <boost/json/value.hpp>

namespace kp::sim::pve {

using config_map = std::map<std::string, std::string>;

// True for config keys of the qemu-server schema (incl. numbered ones: net0, scsi3, numa1 ...).
bool is_config_key(const std::string& key);
// Keys only root@pam may set (tokens and other users get "only root can set '<key>' config").
bool is_root_only_key(const std::string& key);
// Integer and boolean keys become JSON numbers; everything else stays a string (check_type).
boost::json::value config_value_json(const std::string& key, const std::string& value);
// Disk slots: scsiN, virtioN, sataN, ideN, efidisk0, tpmstate0.
bool is_drive_key(const std::string& key);
bool is_cdrom(const std::string& value);
// The volume id of a drive value ("local-lvm:vm-101-disk-0,size=10G" -> "local-lvm:vm-101-disk-0").
std::string drive_volid(const std::string& value);
std::uint64_t drive_size(const std::string& value);
// Whether a pending change of `key` can be applied to a running VM (hotplug network,disk,usb and
// the options Proxmox applies at once).
bool hot_applicable(const std::string& key, const std::string& hotplug);

// The raw config file text (what the digest covers): description as '#' lines, then sorted
// keys, then a [PENDING] section.
std::string render_config_file(const config_map& config, const config_map& pending,
                               const std::set<std::string>& pending_delete);
std::string sha1_hex(const std::string& data);

// Guest CPUs as vmstatus computes them: vcpus, else sockets*cores, capped at host CPUs.
int vm_cpus(const config_map& config, int host_cpus);
// Memory in MiB from the "[current=]N" property string (default 512).
std::uint64_t vm_memory_mib(const config_map& config);

}  // namespace kp::sim::pve
