#pragma once
// JSON `data` values of Proxmox replies into the typed values of api_types.hpp. Lenient where
// Proxmox itself is inconsistent (numbers sent as strings, booleans as 0/1), strict about shape:
// a list that is not an array or an entry that is not an object is "invalid_reply".
// Internal to protocol/proxmox.
#include <boost/json/value.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "protocol/proxmox/api_types.hpp"
#include "protocol/proxmox/upid.hpp"

namespace kp::proxmox {

result<version_info> decode_version(const boost::json::value& data);
result<std::vector<cluster_resource>> decode_cluster_resources(const boost::json::value& data);
result<node_status> decode_node_status(const boost::json::value& data);
result<std::vector<network_interface>> decode_network(const boost::json::value& data);
result<std::vector<pci_resource_mapping>> decode_pci_mappings(const boost::json::value& data);
// nextid: "100" (Proxmox sends a string) or 100.
result<std::uint32_t> decode_vmid(const boost::json::value& data);
result<upid> decode_upid(const boost::json::value& data);
// A JSON object as text values: strings as they are, numbers and booleans printed
// (VM config, firewall options).
result<std::map<std::string, std::string>> decode_text_object(const boost::json::value& data);
result<vm_status> decode_vm_status(const boost::json::value& data);
result<std::vector<storage_info>> decode_storages(const boost::json::value& data);
result<std::vector<storage_content>> decode_storage_content(const boost::json::value& data);
result<firewall_options> decode_firewall_options(const boost::json::value& data);
result<std::vector<firewall_rule>> decode_firewall_rules(const boost::json::value& data);
result<std::vector<firewall_group>> decode_firewall_groups(const boost::json::value& data);
result<std::vector<pool_info>> decode_pools(const boost::json::value& data);
result<pool_info> decode_pool(const boost::json::value& data);
result<int> decode_exec_pid(const boost::json::value& data);
result<agent_exec_status> decode_exec_status(const boost::json::value& data);
result<task_status> decode_task_status(const boost::json::value& data);
// GET /cluster/tasks: an entry without endtime is running; one with it stopped, its `status`
// being the exit status. Entries without a UPID are left out (the list answers what it names).
result<std::vector<task_status>> decode_cluster_tasks(const boost::json::value& data);

}  // namespace kp::proxmox
