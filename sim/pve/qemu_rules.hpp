#pragma once
// Internal to sim/pve: qemu-server's checks and formats that several VM endpoints share: the
// lock property and flock, DNS names, the config digest, list splitting and a VM's status entry.
#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

#include "sim/pve/api_call.hpp"
#include "sim/pve/world_model.hpp"

namespace kp::sim::pve {

// "can't lock file '/var/lock/qemu-server/lock-<vmid>.conf' - got timeout"
std::string lock_timeout(int vmid);
// The sync checks every config writer makes before it forks: the lock property and the flock.
std::optional<api_reply> check_writable(const vm_state& vm, const api_call& c);
bool valid_dns_name(const std::string& s);
// SHA1 of the config file as Proxmox writes it (pending section included).
std::string current_digest(const vm_state& vm);
// PVE::Tools::split_list: ',', ';' and whitespace separate.
std::vector<std::string> split_list(const std::string& s);
// A VM's size and state as /nodes/{node}/qemu and status/current show them.
boost::json::object vm_status_entry(const world_model& world, const vm_state& vm);

}  // namespace kp::sim::pve
