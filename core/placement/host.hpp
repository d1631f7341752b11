#pragma once
// A Proxmox host (a zone) as placement sees it: its CPU and NUMA topology, and what the VMs
// placed there already hold. Built from the inventory; updated as a plan places VMs.
#include <cstdint>
#include <string>
#include <vector>

#include "core/placement/cpu_set.hpp"
#include "core/placement/pci_devices.hpp"

namespace kp::placement {

struct numa_node {
  int id = 0;
  cpu_set cpus;
  std::int64_t memory_bytes = 0;
};

struct host_topology {
  int sockets = 1;
  int cores_per_socket = 1;
  int threads_per_core = 1;
  std::vector<numa_node> numa_nodes;  // at least one
  cpu_set reserved_cpus;
  // The Go provider reserves 1 GiB per host for the hypervisor; so do we by default.
  std::int64_t reserved_memory_bytes = std::int64_t{1} << 30;

  int physical_cores() const { return sockets * cores_per_socket; }
  cpu_set all_cpus() const;
  int total_cpus() const { return all_cpus().size(); }
  std::int64_t total_memory() const;
  // Linux numbers hyperthread siblings "first all physical cores, then their siblings", so
  // CPU c sits on physical core c mod physical_cores().
  int physical_core_of(int cpu) const;
  // The NUMA node index (into numa_nodes) holding `cpu`, or -1.
  int numa_index_of(int cpu) const;
};

// Predicts a topology from what /nodes/{node}/status reports when nothing better is known:
// NUMA nodes = sockets, CPUs and memory split evenly, siblings in the second half.
host_topology predict_topology(int sockets, int cpus, int cores_per_socket,
                               std::int64_t memory_bytes);

// Where one VM's vCPUs and memory sit on a host NUMA node (one Proxmox `numaN` entry).
struct numa_binding {
  int first_guest_cpu = 0;
  int last_guest_cpu = 0;
  int host_node = 0;  // numa_node::id
  std::int64_t memory_bytes = 0;
};

// What one VM holds on its host. `pinned` is empty for unpinned VMs (policy simple).
struct vm_allocation {
  int vmid = 0;
  int vcpus = 0;
  std::int64_t memory_bytes = 0;
  cpu_set pinned;
  std::vector<numa_binding> numa;
  bool managed = true;  // created by this controller (counts for the Spread strategy)
  pci_counts pci;       // mapped PCI devices it holds (hostpciN: mapping=<id>)
};

class host_state {
 public:
  host_state() = default;
  host_state(std::string name, host_topology topology);

  const std::string& name() const { return name_; }
  const host_topology& topology() const { return topology_; }
  bool online = true;
  // Usage fraction reported by Proxmox (0..1); lags, so strategies prefer our own accounting.
  double reported_cpu_load = 0;
  // Devices of each PCI resource mapping on this host (from /cluster/mapping/pci).
  pci_counts pci_devices;

  // Accounts a VM: pinned CPUs, counted vCPUs, memory, per-NUMA memory.
  void add(const vm_allocation& vm);
  // Releases a VM by id; false if it was not here.
  bool remove(int vmid);

  const std::vector<vm_allocation>& vms() const { return vms_; }
  int managed_vms() const { return managed_vms_; }
  cpu_set pinned_cpus() const { return pinned_; }
  // CPUs neither reserved nor pinned (unpinned VMs float over these).
  cpu_set unpinned_cpus() const;
  int committed_vcpus() const { return committed_vcpus_; }
  int free_cpus() const;  // all - reserved - pinned - unpinned vCPUs, at least 0
  std::int64_t free_memory() const;
  std::int64_t numa_free_memory(std::size_t numa_index) const;
  // CPUs of the NUMA node neither reserved nor pinned: what pinning could still take there.
  // Unpinned VMs float over every node, so they count against free_cpus() only.
  int numa_free_cpus(std::size_t numa_index) const;
  // Devices of each mapping the host has that no VM here holds (mappings without any device
  // here are absent).
  pci_counts free_pci() const;
  // Committed vCPUs over usable CPUs (0..1+): our own, lag-free load measure.
  double committed_load() const;

 private:
  std::string name_;
  host_topology topology_;
  // Derived once from the topology: placement asks for them in every comparison.
  cpu_set usable_cpus_;
  int usable_count_ = 0;
  std::int64_t total_memory_ = 0;
  std::vector<vm_allocation> vms_;
  cpu_set pinned_;
  int pinned_count_ = 0;
  int managed_vms_ = 0;
  int unpinned_vcpus_ = 0;
  int committed_vcpus_ = 0;
  std::int64_t memory_used_ = 0;
  pci_counts pci_used_;
  std::vector<std::int64_t> numa_memory_used_;
};

}  // namespace kp::placement
