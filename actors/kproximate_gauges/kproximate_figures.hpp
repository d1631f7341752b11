#pragma once
// kproximate's gauges (kproximate.md section 8) computed from one snapshot, with one definition
// of "our nodes" for every figure: Nodes with a proxmox:// providerID or named by a NodeClaim.
// kproximate's P variant summed allocated requests over every worker but allocatable over its
// own nodes only; here both sums cover the same nodes, so allocated <= allocatable holds.
#include <cstdint>

#include "protocol/cluster_snapshot.hpp"

namespace kp::actors::kproximate_gauges {

struct kproximate_figures {
  double kpnodes_running = 0;     // our Nodes with Ready=True
  double cpu_provisioned = 0;     // their capacity (cores)
  double memory_provisioned = 0;  // their capacity (bytes)
  double cpu_allocatable = 0;     // their allocatable (cores)
  double memory_allocatable = 0;  // their allocatable (bytes)
  double cpu_allocated = 0;       // requests of the pods bound to them that are not finished
  double memory_allocated = 0;
};

bool is_our_node(const kube::node& node, const protocol::cluster_snapshot& snapshot);

kproximate_figures figures_of(const protocol::cluster_snapshot& snapshot);

}  // namespace kp::actors::kproximate_gauges
