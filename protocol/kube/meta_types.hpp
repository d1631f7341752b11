#pragma once
// The building blocks every Kubernetes object shares: metadata, conditions, selectors, taints,
// tolerations and affinity, as plain values. Quantities and timestamps stay as the text the API
// sent; protocol/kube/model_translation turns them into core/model values.
#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "protocol/kube/shared_vector.hpp"

namespace kp::kube {

using string_map = std::map<std::string, std::string>;
// Resource name -> quantity text ("100m", "1Gi"); numbers sent by the API are kept as text.
using resource_list = std::map<std::string, std::string>;

// Bytes that travel base64-encoded (Secret data, CSR request and certificate).
struct base64_bytes {
  std::string value;
  friend bool operator==(const base64_bytes&, const base64_bytes&) = default;
};

// An intOrString ("50%" or 2).
struct int_or_string {
  bool is_int = true;
  std::int64_t int_value = 0;
  std::string string_value;
  friend bool operator==(const int_or_string&, const int_or_string&) = default;
};

struct owner_reference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  std::optional<bool> controller;
  std::optional<bool> block_owner_deletion;
  friend bool operator==(const owner_reference&, const owner_reference&) = default;
  friend auto operator<=>(const owner_reference&, const owner_reference&) = default;
};

struct object_meta {
  std::string name;
  std::string generate_name;
  std::string namespace_;
  std::string uid;
  std::string resource_version;
  std::int64_t generation = 0;
  std::string creation_timestamp;  // RFC 3339
  std::optional<std::string> deletion_timestamp;
  std::optional<std::int64_t> deletion_grace_period_seconds;
  string_map labels;
  string_map annotations;
  shared_vector<owner_reference> owner_references;  // equal on pods of one controller: shared
  std::vector<std::string> finalizers;
  friend bool operator==(const object_meta&, const object_meta&) = default;
};

// A status condition in the metav1.Condition shape (also used by Karpenter and the CRDs).
struct condition {
  std::string type;
  std::string status;  // "True", "False", "Unknown"
  std::string reason;
  std::string message;
  std::string last_transition_time;
  std::string last_heartbeat_time;  // nodes only
  std::int64_t observed_generation = 0;
  friend bool operator==(const condition&, const condition&) = default;
  friend auto operator<=>(const condition&, const condition&) = default;
};

struct object_reference {
  std::string api_version;
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string resource_version;
  std::string field_path;
  friend bool operator==(const object_reference&, const object_reference&) = default;
};

struct label_selector_requirement {
  std::string key;
  std::string operator_;  // In, NotIn, Exists, DoesNotExist
  std::vector<std::string> values;
  friend bool operator==(const label_selector_requirement&,
                         const label_selector_requirement&) = default;
  friend auto operator<=>(const label_selector_requirement&,
                          const label_selector_requirement&) = default;
};

struct label_selector {
  string_map match_labels;
  std::vector<label_selector_requirement> match_expressions;
  friend bool operator==(const label_selector&, const label_selector&) = default;
  friend auto operator<=>(const label_selector&, const label_selector&) = default;
};

// A node selector requirement; min_values is Karpenter's extension.
struct node_selector_requirement {
  std::string key;
  std::string operator_;  // In, NotIn, Exists, DoesNotExist, Gt, Lt (+ Gte, Lte for Karpenter)
  std::vector<std::string> values;
  std::optional<std::int64_t> min_values;
  friend bool operator==(const node_selector_requirement&,
                         const node_selector_requirement&) = default;
  friend auto operator<=>(const node_selector_requirement&,
                          const node_selector_requirement&) = default;
};

struct node_selector_term {
  std::vector<node_selector_requirement> match_expressions;
  std::vector<node_selector_requirement> match_fields;
  friend bool operator==(const node_selector_term&, const node_selector_term&) = default;
  friend auto operator<=>(const node_selector_term&, const node_selector_term&) = default;
};

struct node_selector {
  std::vector<node_selector_term> node_selector_terms;
  friend bool operator==(const node_selector&, const node_selector&) = default;
  friend auto operator<=>(const node_selector&, const node_selector&) = default;
};

struct preferred_scheduling_term {
  std::int64_t weight = 0;
  node_selector_term preference;
  friend bool operator==(const preferred_scheduling_term&,
                         const preferred_scheduling_term&) = default;
  friend auto operator<=>(const preferred_scheduling_term&,
                          const preferred_scheduling_term&) = default;
};

struct node_affinity {
  std::optional<node_selector> required;  // requiredDuringSchedulingIgnoredDuringExecution
  std::vector<preferred_scheduling_term> preferred;
  friend bool operator==(const node_affinity&, const node_affinity&) = default;
  friend auto operator<=>(const node_affinity&, const node_affinity&) = default;
};

struct pod_affinity_term {
  std::optional<label_selector> selector;
  std::vector<std::string> namespaces;
  std::optional<label_selector> namespace_selector;
  std::string topology_key;
  friend bool operator==(const pod_affinity_term&, const pod_affinity_term&) = default;
  friend auto operator<=>(const pod_affinity_term&, const pod_affinity_term&) = default;
};

struct weighted_pod_affinity_term {
  std::int64_t weight = 0;
  pod_affinity_term term;
  friend bool operator==(const weighted_pod_affinity_term&,
                         const weighted_pod_affinity_term&) = default;
  friend auto operator<=>(const weighted_pod_affinity_term&,
                          const weighted_pod_affinity_term&) = default;
};

struct pod_affinity {
  std::vector<pod_affinity_term> required;
  std::vector<weighted_pod_affinity_term> preferred;
  friend bool operator==(const pod_affinity&, const pod_affinity&) = default;
  friend auto operator<=>(const pod_affinity&, const pod_affinity&) = default;
};

struct affinity {
  std::optional<kube::node_affinity> node_affinity;
  std::optional<kube::pod_affinity> pod_affinity;
  std::optional<kube::pod_affinity> pod_anti_affinity;
  friend bool operator==(const affinity&, const affinity&) = default;
  friend auto operator<=>(const affinity&, const affinity&) = default;
};

struct taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute
  std::string time_added;
  friend bool operator==(const taint&, const taint&) = default;
};

struct toleration {
  std::string key;
  std::string operator_;  // Equal (default) or Exists
  std::string value;
  std::string effect;
  std::optional<std::int64_t> toleration_seconds;
  friend bool operator==(const toleration&, const toleration&) = default;
  friend auto operator<=>(const toleration&, const toleration&) = default;
};

// Reference to a Secret by name and namespace.
struct secret_reference {
  std::string name;
  std::string namespace_;
  friend bool operator==(const secret_reference&, const secret_reference&) = default;
};

// A list page: the items plus the list's resourceVersion and continue token.
template <class T>
struct object_list {
  std::string resource_version;
  std::string continue_token;
  std::optional<std::int64_t> remaining_item_count;
  std::vector<T> items;
};

}  // namespace kp::kube
