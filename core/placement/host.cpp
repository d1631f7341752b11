#include "core/placement/host.hpp"

#include <algorithm>

namespace kp::placement {

cpu_set host_topology::all_cpus() const {
  cpu_set all;
  for (const auto& node : numa_nodes) all = all | node.cpus;
  return all;
}

std::int64_t host_topology::total_memory() const {
  std::int64_t total = 0;
  for (const auto& node : numa_nodes) total += node.memory_bytes;
  return total;
}

int host_topology::physical_core_of(int cpu) const {
  int cores = physical_cores();
  return cores > 0 ? cpu % cores : cpu;
}

int host_topology::numa_index_of(int cpu) const {
  for (std::size_t i = 0; i < numa_nodes.size(); ++i) {
    if (numa_nodes[i].cpus.contains(cpu)) return static_cast<int>(i);
  }
  return -1;
}

host_topology predict_topology(int sockets, int cpus, int cores_per_socket,
                               std::int64_t memory_bytes) {
  host_topology t;
  t.sockets = std::max(sockets, 1);
  t.cores_per_socket = std::max(cores_per_socket, 1);
  int physical = t.sockets * t.cores_per_socket;
  t.threads_per_core = std::max(cpus / std::max(physical, 1), 1);
  // One NUMA node per socket: its physical cores and their siblings.
  for (int s = 0; s < t.sockets; ++s) {
    numa_node node;
    node.id = s;
    for (int thread = 0; thread < t.threads_per_core; ++thread) {
      int first = thread * physical + s * t.cores_per_socket;
      for (int c = 0; c < t.cores_per_socket; ++c) node.cpus.insert(first + c);
    }
    node.memory_bytes = memory_bytes / t.sockets;
    t.numa_nodes.push_back(std::move(node));
  }
  return t;
}

host_state::host_state(std::string name, host_topology topology)
    : name_(std::move(name)),
      topology_(std::move(topology)),
      usable_cpus_(topology_.all_cpus() - topology_.reserved_cpus),
      usable_count_(usable_cpus_.size()),
      total_memory_(topology_.total_memory()),
      numa_memory_used_(topology_.numa_nodes.size(), 0) {}

void host_state::add(const vm_allocation& vm) {
  vms_.push_back(vm);
  committed_vcpus_ += vm.vcpus;
  if (vm.pinned.empty()) {
    unpinned_vcpus_ += vm.vcpus;
  } else {
    // Overlapping pins (from VMs made by someone else) count once.
    pinned_ = pinned_ | (vm.pinned & usable_cpus_);
    pinned_count_ = pinned_.size();
  }
  if (vm.managed) ++managed_vms_;
  memory_used_ += vm.memory_bytes;
  for (const auto& [mapping, n] : vm.pci) pci_used_[mapping] += n;
  for (const auto& binding : vm.numa) {
    for (std::size_t i = 0; i < topology_.numa_nodes.size(); ++i) {
      if (topology_.numa_nodes[i].id == binding.host_node)
        numa_memory_used_[i] += binding.memory_bytes;
    }
  }
}

bool host_state::remove(int vmid) {
  auto it = std::find_if(vms_.begin(), vms_.end(), [&](const auto& vm) { return vm.vmid == vmid; });
  if (it == vms_.end()) return false;
  vms_.erase(it);
  // Rebuild the counters: pins may overlap, so subtraction alone would be wrong.
  std::vector<vm_allocation> remaining;
  remaining.swap(vms_);
  pinned_ = {};
  pinned_count_ = managed_vms_ = 0;
  unpinned_vcpus_ = committed_vcpus_ = 0;
  memory_used_ = 0;
  pci_used_.clear();
  std::fill(numa_memory_used_.begin(), numa_memory_used_.end(), 0);
  for (const auto& vm : remaining) add(vm);
  return true;
}

cpu_set host_state::unpinned_cpus() const {
  return usable_cpus_ - pinned_;
}

int host_state::free_cpus() const {
  return std::max(usable_count_ - pinned_count_ - unpinned_vcpus_, 0);
}

std::int64_t host_state::free_memory() const {
  return std::max<std::int64_t>(total_memory_ - topology_.reserved_memory_bytes - memory_used_, 0);
}

std::int64_t host_state::numa_free_memory(std::size_t numa_index) const {
  if (numa_index >= topology_.numa_nodes.size()) return 0;
  // The host reservation is spread evenly over the NUMA nodes.
  std::int64_t reserved =
      topology_.reserved_memory_bytes /
      static_cast<std::int64_t>(std::max<std::size_t>(topology_.numa_nodes.size(), 1));
  return std::max<std::int64_t>(
      topology_.numa_nodes[numa_index].memory_bytes - reserved - numa_memory_used_[numa_index], 0);
}

int host_state::numa_free_cpus(std::size_t numa_index) const {
  if (numa_index >= topology_.numa_nodes.size()) return 0;
  return (unpinned_cpus() & topology_.numa_nodes[numa_index].cpus).size();
}

pci_counts host_state::free_pci() const {
  pci_counts out;
  for (const auto& [mapping, n] : pci_devices) {
    auto used = pci_used_.find(mapping);
    out[mapping] = std::max(n - (used == pci_used_.end() ? 0 : used->second), 0);
  }
  return out;
}

double host_state::committed_load() const {
  return usable_count_ > 0 ? static_cast<double>(committed_vcpus_) / usable_count_ : 1.0;
}

}  // namespace kp::placement
