#pragma once
// What the disruption planner reads: the scheduling snapshot of the cluster plus the few facts
// only disruption needs (PDBs, the hashes NodeClaims should carry, pod events, the clock).
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/drift_hash.hpp"
#include "core/model/label_selector.hpp"
#include "core/scheduling/provision.hpp"

namespace kp::disruption {

// The drift hash annotation keys (core/model/drift_hash.hpp), under the name disruption code
// has always used.
namespace annotations = model::annotations;

struct pod_disruption_budget {
  std::string name;
  std::string namespace_;
  model::label_selector selector;
  int disruptions_allowed = 0;  // status.disruptionsAllowed
};

// What a NodePool's NodeClaims should carry now; an empty field is not compared.
struct drift_reference {
  std::string nodepool_hash;
  std::string nodepool_hash_version;
  std::string nodeclass_hash;
  std::string nodeclass_hash_version;
  std::string image_id;  // the template image identity of the node class
};

struct cluster {
  // pods: pending pods; nodes, bound_pods, nodeclaims, nodepools, instance_types, daemonsets as
  // the provisioner sees them.
  scheduling::snapshot state;
  std::vector<pod_disruption_budget> pdbs;
  std::map<std::string, drift_reference, std::less<>> drift;  // by NodePool name
  // NodeClaim status.lastPodEventTime (a pod bound or removed), by NodeClaim name; when absent
  // the newest bound pod's creation or the Initialized transition stands in.
  std::map<std::string, std::int64_t, std::less<>> last_pod_event_unix_ms;
  std::chrono::sys_seconds now{};
};

}  // namespace kp::disruption
