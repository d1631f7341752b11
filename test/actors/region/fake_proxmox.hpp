#pragma once
// An in-memory Proxmox behind the region actor's seam (proxmox::api), for virtual-time tests on
// CAF's test coordinator: hosts, VMs with typed configs, one ISO storage per host, firewall and
// pools, tasks that end at their first poll (or fail, or never end), injected errors per call
// and per VMID, offline hosts, and calls that never answer (a crash in the middle of a launch).
// Every call answers at once, on the caller's thread, through the region's own continuation.
// Counts every call by name, writes apart.
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "protocol/proxmox/api.hpp"

namespace kp::test {

class fake_proxmox final : public proxmox::api {
 public:
  struct vm {
    std::string node;
    proxmox::vm_config config;
    std::string status = "stopped";
    std::string pool;
    proxmox::firewall_options firewall;
    std::vector<proxmox::firewall_rule> rules;
  };
  struct iso_file {
    std::string volid;
    std::uint64_t ctime = 0;
  };
  enum class task_outcome { ok, fail, never_ends };

  // Hosts pve1..pveN (16 CPUs, 64 GiB each), the template `k8s-template` (VMID 9000) on each
  // host as 9000+i, with one virtio NIC on vmbr0 (ipconfig0 ip=dhcp) and a 10G scsi0.
  explicit fake_proxmox(int hosts = 2);

  // --- the world, for tests to arrange and inspect
  std::map<std::uint32_t, vm> vms;
  std::map<std::string, std::string> host_status;     // online, offline
  std::map<std::string, std::vector<iso_file>> isos;  // host -> local storage's ISOs
  std::map<std::string, std::string> iso_bytes;       // volid -> what was uploaded there
  std::map<std::string, task_outcome> task_outcomes;  // by task type (qmclone, qmstart, ...)
  // Tasks of these types answer "running" to this many polls before they end (virtual time).
  std::map<std::string, int> task_running_polls;
  // A task of this type still runs at polls before this much time passed on `clock` (the test
  // coordinator's); without either it ends at its first poll.
  std::map<std::string, std::chrono::milliseconds> task_durations;
  std::function<std::chrono::steady_clock::time_point()> clock;
  // /cluster/tasks leaves tasks of these types out (as if dropped past its 25 finished per
  // host). A listing looks at every task it names as a status poll does (running_polls).
  std::set<std::string> unlisted_task_types;
  // The next calls of `method` fail with these errors, one each (for `vmid`, or any when 0).
  void fail_next(const std::string& method, kp::error e, std::uint32_t vmid = 0, int times = 1);
  // `method` stops answering (its callbacks are kept and never called): a crash mid-call.
  std::set<std::string> hanging;
  // GET /cluster/tasks answers only at release_held(), with the tasks as they are then: a read
  // in flight for as long as a test wants.
  bool holding_task_list = false;
  void release_held();
  // `method` throws when called (a fault in a client): the region must end that one operation.
  std::set<std::string> throwing;
  // /cluster/mapping/pci: none unless a test adds some.
  std::vector<proxmox::pci_resource_mapping> pci_mappings_listed;
  std::map<std::string, int> calls;  // by method
  int writes() const;                // calls that change something (task polls and reads aside)
  int reads() const;
  // Reads that looked at tasks: status polls and /cluster/tasks listings.
  int task_reads() const;
  void reset_counts() { calls.clear(); }
  std::uint64_t now_unix = 1'800'000'000;

  void add_vm(std::uint32_t vmid, const std::string& node, const std::string& name,
              const std::string& description, bool running = true);

  // --- proxmox::api
  void cluster_resources(std::optional<proxmox::resource_type> type,
                         proxmox::callback<std::vector<proxmox::cluster_resource>> done) override;
  void node_status(const std::string& node, proxmox::callback<proxmox::node_status> done) override;
  void node_network(const std::string& node,
                    proxmox::callback<std::vector<proxmox::network_interface>> done) override;
  void pci_mappings(proxmox::callback<std::vector<proxmox::pci_resource_mapping>> done) override;
  void vm_config(const std::string& node, std::uint32_t vmid,
                 proxmox::callback<proxmox::vm_config> done) override;
  void vm_status(const std::string& node, std::uint32_t vmid,
                 proxmox::callback<proxmox::vm_status> done) override;
  void clone_vm(const proxmox::clone_request& request,
                proxmox::callback<proxmox::upid> done) override;
  void create_vm(const proxmox::create_vm_request& request,
                 proxmox::callback<proxmox::upid> done) override;
  void convert_to_template(const std::string& node, std::uint32_t vmid,
                           proxmox::callback<proxmox::upid> done) override;
  void update_vm_config(const std::string& node, std::uint32_t vmid,
                        const proxmox::vm_config_update& update,
                        proxmox::callback<std::optional<proxmox::upid>> done) override;
  void resize_disk(const std::string& node, std::uint32_t vmid, const std::string& disk,
                   const std::string& size,
                   proxmox::callback<std::optional<proxmox::upid>> done) override;
  void start_vm(const std::string& node, std::uint32_t vmid,
                proxmox::callback<proxmox::upid> done) override;
  void stop_vm(const std::string& node, std::uint32_t vmid,
               proxmox::callback<proxmox::upid> done) override;
  void delete_vm(const std::string& node, std::uint32_t vmid, bool purge,
                 proxmox::callback<proxmox::upid> done) override;
  void storages(const std::string& node,
                proxmox::callback<std::vector<proxmox::storage_info>> done) override;
  void storage_content(const std::string& node, const std::string& storage,
                       const std::string& content,
                       proxmox::callback<std::vector<proxmox::storage_content>> done) override;
  void upload(const proxmox::iso_upload& upload, proxmox::callback<proxmox::upid> done) override;
  void download_url(const proxmox::download_url_request& request,
                    proxmox::callback<proxmox::upid> done) override;
  void delete_volume(const std::string& node, const std::string& storage, const std::string& volid,
                     proxmox::callback<std::optional<proxmox::upid>> done) override;
  void firewall_options(const std::string& node, std::uint32_t vmid,
                        proxmox::callback<proxmox::firewall_options> done) override;
  void set_firewall_options(const std::string& node, std::uint32_t vmid,
                            const proxmox::firewall_options& options,
                            proxmox::done_callback done) override;
  void firewall_rules(const std::string& node, std::uint32_t vmid,
                      proxmox::callback<std::vector<proxmox::firewall_rule>> done) override;
  void add_firewall_rule(const std::string& node, std::uint32_t vmid,
                         const proxmox::firewall_rule& rule, proxmox::done_callback done) override;
  void delete_firewall_rule(const std::string& node, std::uint32_t vmid, unsigned pos,
                            proxmox::done_callback done) override;
  void set_pool_member(const std::string& poolid, std::uint32_t vmid, bool member,
                       proxmox::done_callback done) override;
  void agent_ping(const std::string& node, std::uint32_t vmid,
                  proxmox::done_callback done) override;
  void agent_exec(const std::string& node, std::uint32_t vmid,
                  const std::vector<std::string>& command, const std::string& input_data,
                  proxmox::callback<int> done) override;
  void agent_exec_status(const std::string& node, std::uint32_t vmid, int pid,
                         proxmox::callback<proxmox::agent_exec_status> done) override;
  void task_status(const proxmox::upid& task,
                   proxmox::callback<proxmox::task_status> done) override;
  void cluster_tasks(proxmox::callback<std::vector<proxmox::task_status>> done) override;

 private:
  struct task {
    proxmox::upid id;
    task_outcome outcome = task_outcome::ok;
    std::function<void()> effect;  // applied when the task ends well
    int running_polls = 0;         // polls still to answer "running"
    std::optional<std::chrono::steady_clock::time_point> ends_at;
  };
  struct injected {
    kp::error error;
    std::uint32_t vmid = 0;
    int times = 1;
  };
  // Counts the call; an injected error, an offline host or a hanging call answer first.
  std::optional<kp::error> enter(const std::string& method, const std::string& node,
                                 std::uint32_t vmid, bool* hang);
  proxmox::upid start_task(const std::string& node, const std::string& type, std::uint32_t vmid,
                           std::function<void()> effect);
  void touch(vm& v);
  // The task's status now: counts down running_polls, applies its effect when it ended well.
  proxmox::task_status look_at(task& t);

  void list_tasks(const proxmox::callback<std::vector<proxmox::task_status>>& done);

  std::map<std::string, std::vector<injected>> failures_;
  std::vector<std::function<void()>> held_;
  std::map<std::string, task> tasks_;
  std::vector<std::string> task_order_;  // UPIDs, oldest first
  int next_task_ = 1;
  std::uint64_t digest_ = 1;
};

}  // namespace kp::test
