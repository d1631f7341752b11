#pragma once
// What the disruption end-to-end tests share: a lab world whose disruption loop runs every second
// with a one-second validation, a NodePool shaped per test (policy, consolidateAfter, budgets,
// expireAfter, template labels, one pinned instance type), ReplicaSets with annotations, the
// controller's Events, and which NodeClaims are being disrupted right now.
#include <map>
#include <string>
#include <vector>

#include "test/e2e/e2e_support.hpp"

namespace kp::e2e::disruption {

// The smallest built-in type (1 CPU, 2 GiB, about 930m allocatable): a 600m pod fills it, so
// each such pod gets a node of its own and the number of nodes is known in advance.
inline constexpr const char* small_type = "c1.1VCPU-2GB";

struct nodepool_shape {
  std::string policy = "WhenEmpty";  // consolidationPolicy
  std::string consolidate_after = "1s";
  std::vector<std::string> budgets{"100%"};   // nodes of each budget
  std::string expire_after;                   // empty: the default
  std::map<std::string, std::string> labels;  // spec.template.metadata.labels
};
// The lab's NodePool `default` (same node class and limits) with this shape, pinned to small_type.
std::string nodepool_yaml(const nodepool_shape& shape);

struct replica_set_shape {
  std::string name;
  int replicas = 1;
  std::string cpu = "250m", memory = "256Mi";
  std::map<std::string, std::string> annotations;  // on the pods
};
std::string replica_set_yaml(const replica_set_shape& shape);

// Lab options with a short disruption loop (poll and validation every second).
lab::lab_options disruption_options();

struct event_view {
  std::string reason, kind, name, message, type;
};

class disruption_test : public e2e_test {
 protected:
  void set_nodepool(const nodepool_shape& shape) { apply(nodepool_yaml(shape)); }
  void replica_set(const replica_set_shape& shape) { apply(replica_set_yaml(shape)); }
  // Events of every namespace.
  std::vector<event_view> events();
  // NodeClaims being disrupted now: terminating, or their Node tainted karpenter.sh/disrupted.
  static std::vector<std::string> disrupting(const cluster_view& v);
  // The NodeClaim whose node runs `pod_prefix`'s first pod, "" when none.
  static std::string claim_of_pod(const cluster_view& v, const std::string& pod_prefix);
  // The sum of every sample of a metric family of controller `index`, -1 when unreadable.
  double metric(const std::string& family, std::size_t index = 0);
  // Pods of a ReplicaSet that run (not terminating).
  static long running_of(const cluster_view& v, const std::string& prefix);
};

}  // namespace kp::e2e::disruption
