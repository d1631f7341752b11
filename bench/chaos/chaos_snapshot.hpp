#pragma once
// What the chaos benchmark judges the world by: the pods of its ReplicaSets, the NodeClaims,
// the Nodes and our VMs (made during the run, the foreign one left out), from one pass of list
// calls. Whether that world has converged, and what it leaks, duplicates or leaves stuck.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "sim/lab/lab_world.hpp"

namespace kp::bench {

struct claim_state {
  std::string node_name;
  bool terminating = false;
};

struct chaos_snapshot {
  long pods_live = 0;     // not terminating
  long pods_running = 0;  // Running and not terminating
  long pods_terminating = 0;
  std::map<std::string, claim_state> nodeclaims;
  std::map<std::string, bool> nodes;  // name -> Ready
  std::vector<lab::vm_entry> vms;     // ours: new since the start, the foreign VM left out

  // Every pod of the workload (`wanted`) Running, none other left, and our VMs = NodeClaims =
  // Nodes one to one (each VM named as its NodeClaim, each NodeClaim's Node Ready), nothing
  // being deleted.
  bool converged(long wanted) const;
  // VMs without a NodeClaim of their name (a VM still cloning has no name yet: it counts).
  long leaked_vms() const;
  // VMs beyond the first of each name.
  long duplicate_vms() const;
  // NodeClaims without a VM or without a Ready Node.
  long stuck_nodeclaims() const;
  // "pods 12/14 running | nodeclaims 4 (1 deleting) | nodes 4 (3 ready) | VMs 5 (1 duplicate)"
  std::string line() const;
};

result<chaos_snapshot> take_snapshot(lab::lab_world& world, int foreign_vmid);

}  // namespace kp::bench
