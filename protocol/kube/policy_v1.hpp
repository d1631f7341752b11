#pragma once
// policy/v1: PodDisruptionBudget (read to predict evictions) and Eviction (written to drain).
#include <cstdint>
#include <optional>
#include <string>

#include "protocol/kube/api_resource.hpp"
#include "protocol/kube/meta_types.hpp"

namespace kp::kube {

struct pod_disruption_budget_spec {
  std::optional<int_or_string> min_available;
  std::optional<int_or_string> max_unavailable;
  std::optional<label_selector> selector;
  std::string unhealthy_pod_eviction_policy;  // IfHealthyBudget, AlwaysAllow
  friend bool operator==(const pod_disruption_budget_spec&,
                         const pod_disruption_budget_spec&) = default;
};

struct pod_disruption_budget_status {
  std::int64_t observed_generation = 0;
  std::int64_t disruptions_allowed = 0;
  std::int64_t current_healthy = 0;
  std::int64_t desired_healthy = 0;
  std::int64_t expected_pods = 0;
  string_map disrupted_pods;
  std::vector<condition> conditions;
  friend bool operator==(const pod_disruption_budget_status&,
                         const pod_disruption_budget_status&) = default;
};

struct pod_disruption_budget {
  static constexpr api_resource resource{"policy", "v1", "PodDisruptionBudget",
                                         "poddisruptionbudgets", true};
  object_meta metadata;
  pod_disruption_budget_spec spec;
  pod_disruption_budget_status status;
  friend bool operator==(const pod_disruption_budget&, const pod_disruption_budget&) = default;
};

struct eviction {
  static constexpr api_resource resource{"policy", "v1", "Eviction", "eviction", true};
  object_meta metadata;                              // name and namespace of the pod
  std::optional<std::int64_t> grace_period_seconds;  // deleteOptions.gracePeriodSeconds
  friend bool operator==(const eviction&, const eviction&) = default;
};

}  // namespace kp::kube
