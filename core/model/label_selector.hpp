#pragma once
// metav1.LabelSelector: matchLabels AND matchExpressions (In, NotIn, Exists, DoesNotExist).
#include <map>
#include <string>
#include <vector>

#include "core/model/node_selector.hpp"
#include "core/model/shared_map.hpp"

namespace kp::model {

using label_map = std::map<std::string, std::string, std::less<>>;
// Labels that objects made alike carry equal (a ReplicaSet's pods, a NodePool's NodeClaims in
// one zone): shared, not copied (shared_map.hpp).
using shared_label_map = shared_map<label_map>;

struct label_selector_requirement {
  std::string key;
  selector_operator op = selector_operator::in;  // only in, not_in, exists, does_not_exist
  std::vector<std::string> values;
  friend bool operator==(const label_selector_requirement&,
                         const label_selector_requirement&) = default;
};

struct label_selector {
  label_map match_labels;
  std::vector<label_selector_requirement> match_expressions;
  friend bool operator==(const label_selector&, const label_selector&) = default;
};

// An empty selector matches everything (Kubernetes semantics for a present, empty selector).
bool matches(const label_selector& selector, const label_map& labels);

}  // namespace kp::model
