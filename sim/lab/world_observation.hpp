#pragma once
// What the lab watches while a scenario plays: pods by phase, NodeClaims, Nodes and the VMs the
// controller made, per Proxmox host. One observation is a few list calls.
#include <map>
#include <set>
#include <string>

#include "core/result.hpp"

namespace kp::lab {

class lab_world;

struct world_observation {
  long pods = 0;
  long pods_running = 0;
  long pods_pending = 0;
  long nodeclaims = 0;
  long nodes = 0;
  long nodes_ready = 0;
  long nodes_untainted = 0;  // Ready and without NoSchedule/NoExecute taints: pods may land
  long vms = 0;
  std::map<std::string, int> vms_per_host;
  std::set<int> vmids;

  // The value of an expect metric by name (see expect_metrics()).
  long metric(const std::string& name) const;
  // One progress line: "pods 12 pending / 18 running | nodeclaims 4 | nodes 3 (3 ready) | VMs 4
  // (pve1 2, pve2 2)".
  std::string line() const;
  bool same_as(const world_observation& other) const { return line() == other.line(); }
};

result<world_observation> observe(lab_world& world);

}  // namespace kp::lab
