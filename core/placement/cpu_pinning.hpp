#pragma once
// CPU pinning and NUMA binding for NODE_POLICY=static: which host CPUs a new VM gets, so pinned
// VMs never overlap and stay within one NUMA node when they fit.
#include <optional>

#include "core/placement/host.hpp"

namespace kp::placement {

struct pinning {
  cpu_set cpus;                    // the VM's `affinity`
  std::vector<numa_binding> numa;  // its `numaN` entries, each with its own share of memory
};

// Picks CPUs for a VM of `vcpus` and `memory_bytes` on `host`, or nothing when it cannot fit.
// Rules, in order:
// 1. one NUMA node with enough free CPUs and memory: the fullest such node (best fit keeps large
//    holes for large VMs), ties by lower node id;
// 2. within the node, whole physical cores (all hyperthread siblings free) by ascending core,
//    then single threads, preferring cores whose sibling is already taken (fills holes);
// 3. otherwise span nodes, emptiest first, each node's memory share proportional to the vCPUs
//    it hosts (the Go provider gives every node the whole VM's memory).
// Unpinned VMs already on the host keep their vCPU count available.
std::optional<pinning> choose_pinning(const host_state& host, int vcpus, std::int64_t memory_bytes);

}  // namespace kp::placement
