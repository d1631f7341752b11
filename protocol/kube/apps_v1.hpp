#pragma once
// Workload owners of the apps/v1 group: DaemonSet (its pods count as daemon overhead) and the
// ReplicaSet, Deployment and StatefulSet that own ordinary pods. Minimal: selector, template,
// replica counts.
#include <cstdint>
#include <optional>

#include "protocol/kube/api_resource.hpp"
#include "protocol/kube/core_v1.hpp"
#include "protocol/kube/meta_types.hpp"

namespace kp::kube {

struct daemon_set_status {
  std::int64_t current_number_scheduled = 0;
  std::int64_t desired_number_scheduled = 0;
  std::int64_t number_ready = 0;
  std::int64_t number_misscheduled = 0;
  std::int64_t observed_generation = 0;
  friend bool operator==(const daemon_set_status&, const daemon_set_status&) = default;
};

struct daemon_set {
  static constexpr api_resource resource{"apps", "v1", "DaemonSet", "daemonsets", true};
  object_meta metadata;
  label_selector selector;      // spec.selector
  pod_template_spec template_;  // spec.template
  daemon_set_status status;
  friend bool operator==(const daemon_set&, const daemon_set&) = default;
};

struct replicated_status {
  std::int64_t replicas = 0;
  std::int64_t ready_replicas = 0;
  std::int64_t available_replicas = 0;
  std::int64_t observed_generation = 0;
  friend bool operator==(const replicated_status&, const replicated_status&) = default;
};

// The shape shared by ReplicaSet, Deployment and StatefulSet.
struct replicated_workload {
  object_meta metadata;
  std::optional<std::int64_t> replicas;  // spec.replicas; unset means 1
  label_selector selector;
  pod_template_spec template_;
  replicated_status status;
  friend bool operator==(const replicated_workload&, const replicated_workload&) = default;
};

struct replica_set : replicated_workload {
  static constexpr api_resource resource{"apps", "v1", "ReplicaSet", "replicasets", true};
};
struct deployment : replicated_workload {
  static constexpr api_resource resource{"apps", "v1", "Deployment", "deployments", true};
};
struct stateful_set : replicated_workload {
  static constexpr api_resource resource{"apps", "v1", "StatefulSet", "statefulsets", true};
};

}  // namespace kp::kube
