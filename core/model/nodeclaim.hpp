#pragma once
// karpenter.sh/v1 NodeClaim: a request for one node, and what became of it.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/model/nodepool.hpp"

namespace kp::model {

struct condition {
  std::string type;
  std::string status;  // "True", "False", "Unknown"
  std::string reason;
  std::string message;
  std::int64_t last_transition_unix_ms = 0;
  friend bool operator==(const condition&, const condition&) = default;
};

struct nodeclaim {
  std::string name;
  std::string uid;
  std::string nodepool;  // label karpenter.sh/nodepool
  // The NodeClaims of one NodePool, instance type and zone carry equal labels, annotations and
  // requirements: shared between their models (protocol/kube/nodeclaim_part_models.hpp).
  shared_label_map labels;
  shared_label_map annotations;
  shared_vector<node_selector_requirement> requirements;
  std::vector<taint> taints;
  std::vector<taint> startup_taints;
  resource_list requests;
  node_class_ref node_class;
  std::string expire_after = "720h";
  std::string termination_grace_period;
  std::int64_t creation_unix_ms = 0;
  bool terminating = false;
  // status
  std::string node_name;
  std::string provider_id;
  std::string image_id;
  resource_list capacity;
  resource_list allocatable;
  std::vector<condition> conditions;

  // True when the condition of that type is "True".
  bool has_condition(std::string_view type) const {
    for (const auto& c : conditions)
      if (c.type == type) return c.status == "True";
    return false;
  }
  bool launched() const { return has_condition("Launched"); }
  bool registered() const { return has_condition("Registered"); }
  bool initialized() const { return has_condition("Initialized"); }
  friend bool operator==(const nodeclaim&, const nodeclaim&) = default;
};

// A NodeClaim shared between snapshots and simulations, as model::shared_node is.
using shared_nodeclaim = std::shared_ptr<const nodeclaim>;
inline shared_nodeclaim share(nodeclaim c) {
  return std::make_shared<const nodeclaim>(std::move(c));
}

}  // namespace kp::model
