#pragma once
// Internal to sim/pve: the state every API area shares (hosts from the topology, the VMs, the
// clock and timers, injected faults, the simulated guests) and the questions about it that
// several areas ask. State owned by one area alone lives in that area's class. Everything runs
// on one io thread, so there are no locks; timers come back on that same thread.
#include <boost/asio/io_context.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "sim/pve/faults.hpp"
#include "sim/pve/simulator.hpp"
#include "sim/pve/topology.hpp"
#include "sim/pve/vm_config.hpp"

namespace kp::sim::pve {

class guest_fleet;
using sim_clock = std::chrono::steady_clock;

struct firewall_rule {
  std::map<std::string, std::string> fields;
};

struct exec_result {
  bool exited = true;
  int exitcode = 0;
  std::string out;
  std::string err;
};

// A PCI device a running VM holds (released when it stops).
struct held_pci_device {
  std::string slot;     // hostpci0
  std::string mapping;  // "" for a raw host device
  std::string path;     // 0000:01:00.0
  bool mediated = false;
};

struct vm_state {
  int vmid = 0;
  std::string node;
  config_map config;
  config_map pending;
  std::set<std::string> pending_delete;
  bool running = false;
  sim_clock::time_point created;
  sim_clock::time_point started;
  int linked_base = 0;    // template VMID whose base volume this VM's disks use
  int clone_readers = 0;  // clones currently reading this VM (a shared flock)
  std::map<std::string, std::string> firewall_options;
  std::vector<firewall_rule> firewall_rules;
  std::string pool;
  std::uint32_t pid = 0;
  std::map<int, exec_result> execs;
  std::vector<held_pci_device> pci_devices;
  bool is_template() const {
    auto it = config.find("template");
    return it != config.end() && it->second == "1";
  }
  std::string lock() const {
    auto it = config.find("lock");
    return it == config.end() ? "" : it->second;
  }
  std::string name() const {
    auto it = config.find("name");
    return it == config.end() ? "" : it->second;
  }
};

// Host accounting (documented in docs/pve-sim.md).
struct host_usage {
  double cpu = 0;
  std::uint64_t mem = 0;
  std::vector<std::pair<int, std::int64_t>> numa_free;  // node id, free bytes
  int running_vms = 0;
  int running_vcpus = 0;
};

class world_model {
 public:
  world_model(boost::asio::io_context& io, simulator_options options);
  ~world_model();
  world_model(const world_model&) = delete;
  world_model& operator=(const world_model&) = delete;

  boost::asio::io_context& io() { return io_; }
  const topology& topo() const { return options_.topo; }
  // A named duration of the topology, scaled by --time-scale.
  std::chrono::milliseconds duration(const std::string& name) const;
  double duration_ms(const std::string& name) const;
  // Runs `work` after `delay` on the io thread, unless the world is gone by then. An exception
  // it throws is reported on stderr, never lost.
  void after(std::chrono::milliseconds delay, std::function<void()> work);
  std::int64_t now_epoch() const;
  sim_clock::time_point boot_time() const { return boot_time_; }

  std::string new_mac();
  std::string new_uuid();
  std::uint32_t take_pid() { return next_pid_++; }
  fault_injector& faults() { return faults_; }
  const fault_injector& faults() const { return faults_; }
  guest_fleet& guests() { return *guests_; }

  // --- VMs
  std::map<int, vm_state> vms;
  vm_state* find_vm(int vmid);
  // The VM `vmid` on `node`, or the Proxmox "does not exist" error (a 500).
  result<vm_state*> vm_on_node(const std::string& node, const std::string& vmid_text);
  int next_free_vmid() const;
  // Whether /cluster/resources has stats for the VM (pvestatd's RRD broadcast has happened and
  // the host's last data has not expired).
  bool vm_has_stats(const vm_state& vm) const;
  // Whether the host's RRD data is still there: online, or offline for less than rrd_expiry.
  bool host_stats_fresh(const std::string& node) const;

  // --- hosts and storages
  bool host_exists(const std::string& node) const { return topo().find_host(node) != nullptr; }
  bool host_online(const std::string& node) const { return !faults_.host_offline(node); }
  // Whether a call for `node` can be proxied there; the error carries Proxmox's status as its
  // code (500 for an unknown host, 595/596 for an unreachable one) and its message.
  status reach_node(const std::string& node) const;
  bool storage_on_host(const std::string& node, const std::string& storage) const;
  std::filesystem::path content_dir(const std::string& node, const std::string& storage,
                                    const std::string& content) const;
  // The file behind "<storage>:iso/<file>" or "<storage>:import/<file>" on node, if it exists.
  std::optional<std::filesystem::path> volume_file(const std::string& node,
                                                   const std::string& volid) const;
  host_usage usage_of(const std::string& node) const;
  // Bytes the volumes on `storage` take as `node` sees it (every VM's on a shared storage):
  // VM and template disks at their size. A linked clone's volume shares its template's base
  // volume (thin), so it adds nothing; CD-ROMs and cloud-init drives are not volumes here.
  std::uint64_t storage_used(const std::string& node, const std::string& storage) const;

  // Boots the simulated guest of a VM that just started; `extended_resources` are what its
  // Node advertises besides cpu and memory (a device plugin's resources).
  void start_guest(vm_state& vm, std::map<std::string, std::int64_t> extended_resources);

 private:
  boost::asio::io_context& io_;
  simulator_options options_;
  fault_injector faults_;
  std::mt19937 rng_{42};
  std::unique_ptr<guest_fleet> guests_;
  sim_clock::time_point boot_time_;
  std::uint32_t next_pid_ = 0x1a2b0;
  // Timers still queued when the world goes away must not touch it.
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

}  // namespace kp::sim::pve
