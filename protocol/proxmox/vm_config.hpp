#pragma once
// A VM's configuration as typed fields (the keys the product reads and writes) plus every key as
// raw text, and a typed change set that becomes the form body of POST/PUT .../config. Pure: the
// client converts JSON to the raw map, the rest happens here.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "protocol/proxmox/form_encoding.hpp"
#include "protocol/proxmox/property_string.hpp"

namespace kp::proxmox {

struct vm_config {
  std::optional<std::string> name;
  std::optional<std::string> description;
  std::optional<unsigned> cores;
  std::optional<unsigned> sockets;
  std::optional<std::uint64_t> memory_mib;
  std::optional<bool> numa;
  std::map<unsigned, numa_node> numa_nodes;  // numa0..numa7
  std::optional<std::vector<unsigned>> affinity;
  std::optional<std::string> cpu;             // "host", "x86-64-v2-AES,flags=+aes"
  std::map<unsigned, net_device> nets;        // net0..
  std::map<std::string, drive> drives;        // ide2, scsi0, virtio0, sata0, efidisk0, ...
  std::map<unsigned, std::string> ipconfigs;  // ipconfig0.. as property strings
  std::vector<std::string> tags;              // normalised
  std::optional<smbios1> smbios;
  std::optional<bool> onboot;
  std::optional<std::string> agent;    // "1", "enabled=1,fstrim_cloned_disks=1"
  std::optional<std::string> sshkeys;  // decoded text (Proxmox stores it URL-encoded)
  std::optional<std::string> nameserver;
  std::optional<std::string> searchdomain;
  std::optional<std::string> boot;
  std::optional<std::string> lock;
  bool is_template = false;
  std::string digest;                      // pass back on writes to detect concurrent changes
  std::map<std::string, std::string> raw;  // every key as text, including the ones above

  // True when the `agent` option enables the guest agent.
  bool agent_enabled() const;
};

// Fails with "invalid_config" naming the key whose value does not parse.
result<vm_config> parse_vm_config(const std::map<std::string, std::string>& raw);

// What to change. Unset fields are not sent; `raw` passes any other key through unchanged.
struct vm_config_update {
  std::optional<std::string> name;
  std::optional<std::string> description;
  std::optional<unsigned> cores;
  std::optional<unsigned> sockets;
  std::optional<std::uint64_t> memory_mib;
  std::optional<bool> numa;
  std::map<unsigned, numa_node> numa_nodes;
  std::optional<std::vector<unsigned>> affinity;  // root-only in Proxmox (ticket auth)
  std::optional<std::string> cpu;
  std::map<unsigned, net_device> nets;
  std::map<std::string, drive> drives;
  std::map<unsigned, std::string> ipconfigs;
  std::optional<std::vector<std::string>> tags;
  std::optional<smbios1> smbios;
  std::optional<bool> onboot;
  std::optional<std::string> agent;
  std::optional<std::string> sshkeys;  // plain text; encoded as Proxmox expects
  std::optional<std::string> nameserver;
  std::optional<std::string> searchdomain;
  std::optional<std::string> boot;
  form_params raw;                  // sent after the typed keys
  std::vector<std::string> remove;  // keys to delete (delete=a,b)
  std::optional<std::string> digest;

  bool empty() const;
  // Keys only root@pam may set (affinity, args, hookscript, lock): a token cannot send them.
  bool needs_root() const;
};

// The form parameters, typed keys first in a fixed order, then `raw`, then delete and digest.
form_params to_form(const vm_config_update& update);

// ide2 as a CD-ROM holding `volid` (local:iso/seed.iso), or an empty drive for "none".
drive cdrom_drive(const std::string& volid);

}  // namespace kp::proxmox
