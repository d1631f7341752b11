#pragma once
// What the lab watches while a scenario plays: pods by phase (and which are DaemonSet pods),
// NodeClaims, Nodes, workloads still rolling out, PersistentVolumeClaims and the VMs the
// controller made, per Proxmox host. One observation is a few list calls.
#include <boost/json/object.hpp>
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
  long daemon_pods = 0;  // owned by a DaemonSet
  long nodeclaims = 0;
  long nodes = 0;
  long nodes_ready = 0;
  long nodes_untainted = 0;   // Ready and without NoSchedule/NoExecute taints: pods may land
  long rollouts_pending = 0;  // Deployments, StatefulSets, DaemonSets not yet rolled out
  long pvcs = 0;
  long vms = 0;
  std::map<std::string, int> vms_per_host;
  std::set<int> vmids;

  // The value of an expect metric by name (see expect_metrics()).
  long metric(const std::string& name) const;
  // One progress line: "pods 12 pending / 18 running (2 daemon) | nodeclaims 4 | nodes 3 (3
  // ready) | VMs 4 (pve1 2, pve2 2)", with "| rollouts 1 pending" and "| PVCs 3" when there are.
  std::string line() const;
  bool same_as(const world_observation& other) const { return line() == other.line(); }
};

result<world_observation> observe(lab_world& world);

// Whether a Node's Ready condition is True.
bool node_ready(const boost::json::object& node);

// Whether a Deployment, StatefulSet or DaemonSet is rolled out, as `kubectl rollout status`
// decides (observed generation, updated and available counts, revisions).
bool rolled_out(const std::string& kind, const boost::json::object& object);

}  // namespace kp::lab
