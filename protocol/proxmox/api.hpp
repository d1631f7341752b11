#pragma once
// The Proxmox calls the region actor makes, as an abstract interface: the REST client
// (client.hpp) implements it against a real Proxmox or pve-sim, and tests implement it in memory
// to drive the region actor in virtual time. Every call completes exactly once with a result, on
// any thread; the caller turns it into a message. Task waits are not part of it: callers poll
// task_status on their own clock.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "protocol/proxmox/api_types.hpp"
#include "protocol/proxmox/upid.hpp"
#include "protocol/proxmox/vm_config.hpp"

namespace kp::proxmox {

template <class T>
using callback = std::function<void(result<T>)>;
using done_callback = std::function<void(status)>;

class api {
 public:
  virtual ~api() = default;

  // --- cluster and nodes
  virtual void cluster_resources(std::optional<resource_type> type,
                                 callback<std::vector<cluster_resource>> done) = 0;
  virtual void node_status(const std::string& node, callback<node_status> done) = 0;
  virtual void node_network(const std::string& node,
                            callback<std::vector<network_interface>> done) = 0;
  // GET /cluster/mapping/pci: the cluster's PCI resource mappings.
  virtual void pci_mappings(callback<std::vector<pci_resource_mapping>> done) = 0;

  // --- VMs (tasks return their UPID)
  virtual void vm_config(const std::string& node, std::uint32_t vmid,
                         callback<kp::proxmox::vm_config> done) = 0;
  virtual void vm_status(const std::string& node, std::uint32_t vmid,
                         callback<kp::proxmox::vm_status> done) = 0;
  virtual void clone_vm(const clone_request& request, callback<upid> done) = 0;
  virtual void create_vm(const create_vm_request& request, callback<upid> done) = 0;
  virtual void convert_to_template(const std::string& node, std::uint32_t vmid,
                                   callback<upid> done) = 0;
  // POST .../config: a task (nullopt when Proxmox finished it inline).
  virtual void update_vm_config(const std::string& node, std::uint32_t vmid,
                                const vm_config_update& update,
                                callback<std::optional<upid>> done) = 0;
  virtual void resize_disk(const std::string& node, std::uint32_t vmid, const std::string& disk,
                           const std::string& size, callback<std::optional<upid>> done) = 0;
  virtual void start_vm(const std::string& node, std::uint32_t vmid, callback<upid> done) = 0;
  virtual void stop_vm(const std::string& node, std::uint32_t vmid, callback<upid> done) = 0;
  virtual void delete_vm(const std::string& node, std::uint32_t vmid, bool purge,
                         callback<upid> done) = 0;

  // --- storage
  virtual void storages(const std::string& node, callback<std::vector<storage_info>> done) = 0;
  virtual void storage_content(const std::string& node, const std::string& storage,
                               const std::string& content,
                               callback<std::vector<storage_content>> done) = 0;
  virtual void upload(const iso_upload& upload, callback<upid> done) = 0;
  virtual void download_url(const download_url_request& request, callback<upid> done) = 0;
  virtual void delete_volume(const std::string& node, const std::string& storage,
                             const std::string& volid, callback<std::optional<upid>> done) = 0;

  // --- firewall and pools
  virtual void firewall_options(const std::string& node, std::uint32_t vmid,
                                callback<kp::proxmox::firewall_options> done) = 0;
  virtual void set_firewall_options(const std::string& node, std::uint32_t vmid,
                                    const kp::proxmox::firewall_options& options,
                                    done_callback done) = 0;
  virtual void firewall_rules(const std::string& node, std::uint32_t vmid,
                              callback<std::vector<firewall_rule>> done) = 0;
  virtual void add_firewall_rule(const std::string& node, std::uint32_t vmid,
                                 const firewall_rule& rule, done_callback done) = 0;
  virtual void delete_firewall_rule(const std::string& node, std::uint32_t vmid, unsigned pos,
                                    done_callback done) = 0;
  // PUT /pools/{poolid} with vms=<vmid> (and delete=1 to take it out).
  virtual void set_pool_member(const std::string& poolid, std::uint32_t vmid, bool member,
                               done_callback done) = 0;

  // --- guest agent
  virtual void agent_ping(const std::string& node, std::uint32_t vmid, done_callback done) = 0;
  virtual void agent_exec(const std::string& node, std::uint32_t vmid,
                          const std::vector<std::string>& command, const std::string& input_data,
                          callback<int> done) = 0;
  virtual void agent_exec_status(const std::string& node, std::uint32_t vmid, int pid,
                                 callback<agent_exec_status> done) = 0;

  // --- tasks
  virtual void task_status(const upid& task, callback<kp::proxmox::task_status> done) = 0;
  // GET /cluster/tasks: every node's running tasks and its most recent finished ones (Proxmox
  // keeps at most 25 finished per node there), as task statuses: "running", or "stopped" with
  // the exit status. A task missing from it may still exist: ask task_status.
  virtual void cluster_tasks(callback<std::vector<kp::proxmox::task_status>> done) = 0;
};

}  // namespace kp::proxmox
