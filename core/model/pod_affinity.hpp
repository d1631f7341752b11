#pragma once
// Inter-pod affinity and anti-affinity terms.
#include <optional>
#include <string>
#include <vector>

#include "core/model/label_selector.hpp"
#include "core/model/shared_vector.hpp"

namespace kp::model {

struct pod_affinity_term {
  std::optional<label_selector> selector;  // absent selects no pods
  std::vector<std::string> namespaces;     // empty (with no namespace selector) = the pod's own
  std::optional<label_selector> namespace_selector;  // present and empty = all namespaces
  std::string topology_key;
  std::vector<std::string> match_label_keys;
  friend bool operator==(const pod_affinity_term&, const pod_affinity_term&) = default;
};

struct weighted_pod_affinity_term {
  std::int32_t weight = 1;
  pod_affinity_term term;
  friend bool operator==(const weighted_pod_affinity_term&,
                         const weighted_pod_affinity_term&) = default;
};

// A pod's affinity or anti-affinity. The terms are shared (copy on write) between the pods that
// carry equal ones (protocol/kube/affinity_interning.hpp).
struct pod_affinity_rules {
  shared_vector<pod_affinity_term> required;
  shared_vector<weighted_pod_affinity_term> preferred;
  bool empty() const { return required.empty() && preferred.empty(); }
  friend bool operator==(const pod_affinity_rules&, const pod_affinity_rules&) = default;
};

}  // namespace kp::model
