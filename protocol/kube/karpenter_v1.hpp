#pragma once
// karpenter.sh/v1 NodePool and NodeClaim, as chart/karpenter-proxmox/crds/ defines them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/kube/api_resource.hpp"
#include "protocol/kube/meta_types.hpp"

namespace kp::kube {

struct node_class_reference {
  std::string group;
  std::string kind;
  std::string name;
  friend bool operator==(const node_class_reference&, const node_class_reference&) = default;
};

struct node_claim_spec {
  std::vector<taint> taints;
  std::vector<taint> startup_taints;
  std::vector<node_selector_requirement> requirements;
  resource_list resource_requests;  // resources.requests
  node_class_reference node_class_ref;
  std::string termination_grace_period;  // Go duration text, "" if unset
  std::string expire_after;              // "720h", "Never"; "" if unset (server default 720h)
  friend bool operator==(const node_claim_spec&, const node_claim_spec&) = default;
};

struct node_claim_status {
  std::string node_name;
  std::string provider_id;
  std::string image_id;
  resource_list capacity;
  resource_list allocatable;
  std::vector<condition> conditions;
  std::string last_pod_event_time;
  friend bool operator==(const node_claim_status&, const node_claim_status&) = default;
};

struct node_claim {
  static constexpr api_resource resource{"karpenter.sh", "v1", "NodeClaim", "nodeclaims", false};
  object_meta metadata;
  node_claim_spec spec;
  node_claim_status status;
  friend bool operator==(const node_claim&, const node_claim&) = default;
};

struct node_claim_template_metadata {
  string_map labels;
  string_map annotations;
  friend bool operator==(const node_claim_template_metadata&,
                         const node_claim_template_metadata&) = default;
};

struct node_claim_template {
  node_claim_template_metadata metadata;
  node_claim_spec spec;  // resources are not part of a pool's template
  friend bool operator==(const node_claim_template&, const node_claim_template&) = default;
};

struct disruption_budget {
  std::string nodes;  // "10%" or "3"
  std::string schedule;
  std::string duration;
  std::vector<std::string> reasons;  // Underutilized, Empty, Drifted; empty = all
  friend bool operator==(const disruption_budget&, const disruption_budget&) = default;
};

struct node_pool_disruption {
  std::string consolidation_policy;  // WhenEmpty, WhenEmptyOrUnderutilized, Balanced
  std::string consolidate_after;     // duration or "Never"
  std::vector<disruption_budget> budgets;
  friend bool operator==(const node_pool_disruption&, const node_pool_disruption&) = default;
};

struct node_pool_spec {
  node_claim_template template_;
  node_pool_disruption disruption;
  resource_list limits;
  std::optional<std::int64_t> weight;
  std::optional<std::int64_t> replicas;
  friend bool operator==(const node_pool_spec&, const node_pool_spec&) = default;
};

struct node_pool_status {
  resource_list resources;
  std::int64_t nodes = 0;
  std::int64_t node_class_observed_generation = 0;
  std::vector<condition> conditions;
  friend bool operator==(const node_pool_status&, const node_pool_status&) = default;
};

struct node_pool {
  static constexpr api_resource resource{"karpenter.sh", "v1", "NodePool", "nodepools", false};
  object_meta metadata;
  node_pool_spec spec;
  node_pool_status status;
  friend bool operator==(const node_pool&, const node_pool&) = default;
};

}  // namespace kp::kube
