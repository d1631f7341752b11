#pragma once
// Pods made from one template (a ReplicaSet's, a Job's, a StatefulSet's) carry equal owner
// references, affinity, tolerations, spread constraints, containers, volumes and (once
// kept_fields has cut them) conditions, and many parts are equal across templates too (the
// not-ready and unreachable tolerations every pod gets, a few container sizes). The pod informer
// passes every decoded pod through one `shared_pod_parts`: each part equal to one already held
// is replaced by a reference to it (kube::shared_vector, kube::shared_optional), so 100,000 pods
// hold each distinct part once. Readers see equal values either way.
#include <cstddef>
#include <mutex>
#include <set>

#include "protocol/kube/core_v1.hpp"

namespace kp::actors::cluster_state {

// The distinct values of one kind of part, by value. A part no pod holds any more is dropped
// by a sweep that runs whenever the pool has doubled since the last one.
template <class Part>
class part_pool {
 public:
  // `part` becomes the held equal one, or is held from now on.
  void share(Part& part);
  std::size_t size() const { return held_.size(); }

 private:
  struct by_value {
    bool operator()(const Part& a, const Part& b) const;
  };
  std::set<Part, by_value> held_;
  std::size_t sweep_at_ = 1024;
};

class shared_pod_parts {
 public:
  // Called from the informer's io threads (list pages and watch events), so it locks.
  void share(kube::pod& pod);

  // Distinct parts held, all kinds together (for tests).
  std::size_t held() const;

 private:
  mutable std::mutex mutex_;
  part_pool<kube::shared_vector<kube::owner_reference>> owner_references_;
  part_pool<kube::shared_optional<kube::affinity>> affinities_;
  part_pool<kube::shared_vector<kube::toleration>> tolerations_;
  part_pool<kube::shared_vector<kube::topology_spread_constraint>> spread_constraints_;
  part_pool<kube::shared_vector<kube::container>> containers_;
  part_pool<kube::shared_vector<kube::volume>> volumes_;
  part_pool<kube::shared_vector<kube::condition>> conditions_;
};

}  // namespace kp::actors::cluster_state
