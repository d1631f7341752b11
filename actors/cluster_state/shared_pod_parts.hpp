#pragma once
// Pods of one controller (a ReplicaSet's, a Job's, a StatefulSet's) are made from one template,
// so their owner references, affinity, tolerations, spread constraints, containers, volumes and
// (once kept_fields has cut them) conditions are nearly always equal. The pod informer passes every
// decoded pod through one `shared_pod_parts`: a part equal to the one last seen on a pod of the
// same controller is replaced by a reference to it (kube::shared_vector), so 100,000 pods of 10,000
// ReplicaSets hold each part 10,000 times, not 100,000. A pod that differs keeps its own part
// (which becomes the one later pods are compared with); a pod without a controller keeps all of its
// own. Readers see equal values either way.
#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>

#include "protocol/kube/core_v1.hpp"

namespace kp::actors::cluster_state {

class shared_pod_parts {
 public:
  // Called from the informer's io threads (list pages and watch events), so it locks.
  void share(kube::pod& pod);

  // Controllers whose parts are held (for tests).
  std::size_t controllers() const;

 private:
  struct parts {
    kube::shared_vector<kube::owner_reference> owner_references;
    kube::shared_optional<kube::affinity> affinity;
    kube::shared_vector<kube::toleration> tolerations;
    kube::shared_vector<kube::topology_spread_constraint> topology_spread_constraints;
    kube::shared_vector<kube::container> init_containers;
    kube::shared_vector<kube::container> containers;
    kube::shared_vector<kube::volume> volumes;
    kube::shared_vector<kube::condition> conditions;
    bool unused() const;
  };
  // Drops controllers whose parts no pod holds any more (their pods are gone).
  void forget_unused();

  mutable std::mutex mutex_;
  std::unordered_map<std::string, parts> by_controller_uid_;
  std::size_t forget_at_ = 1024;
};

}  // namespace kp::actors::cluster_state
