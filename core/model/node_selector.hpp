#pragma once
// Node selector requirements and node affinity, as written in pods, NodePools and NodeClaims.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/shared_vector.hpp"

namespace kp::model {

// Gte and Lte are Karpenter's additions; Kubernetes pods only use the first six.
enum class selector_operator : std::uint8_t {
  in,
  not_in,
  exists,
  does_not_exist,
  gt,
  lt,
  gte,
  lte
};

// "In", "NotIn", ... <-> enum. Unknown names give nullopt.
std::optional<selector_operator> parse_selector_operator(std::string_view name);
const char* to_string(selector_operator op);

struct node_selector_requirement {
  std::string key;
  selector_operator op = selector_operator::in;
  std::vector<std::string> values;
  std::optional<int> min_values;  // NodePool / NodeClaim requirements only
  friend bool operator==(const node_selector_requirement&,
                         const node_selector_requirement&) = default;
};

// Whether `requirements` let `key` take `value`: In must list it, NotIn must not, DoesNotExist
// refuses it; a key they do not name, Exists and numeric bounds allow it.
bool allows_value(const std::vector<node_selector_requirement>& requirements, std::string_view key,
                  const std::string& value);

struct node_selector_term {
  std::vector<node_selector_requirement> match_expressions;
  // matchFields are not supported by Karpenter; their presence makes a pod unschedulable.
  std::vector<node_selector_requirement> match_fields;
  friend bool operator==(const node_selector_term&, const node_selector_term&) = default;
};

struct preferred_scheduling_term {
  std::int32_t weight = 1;
  node_selector_term preference;
  friend bool operator==(const preferred_scheduling_term&,
                         const preferred_scheduling_term&) = default;
};

// A pod's node affinity. The terms are shared (copy on write) between the pods that carry equal
// ones (protocol/kube/affinity_interning.hpp), as a pod's other template parts are.
struct node_affinity {
  // Terms are ORed; requirements within one term are ANDed. Empty means no requirement.
  shared_vector<node_selector_term> required;
  shared_vector<preferred_scheduling_term> preferred;
  friend bool operator==(const node_affinity&, const node_affinity&) = default;
};

}  // namespace kp::model
