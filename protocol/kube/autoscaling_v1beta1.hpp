#pragma once
// autoscaling.x-k8s.io/v1beta1 CapacityBuffer (SIG Autoscaling's API, which Karpenter v1.14
// reads) and core/v1 PodTemplate, the chunk shape a buffer may name. Only the fields the
// controller reads or writes are modelled.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/kube/api_resource.hpp"
#include "protocol/kube/core_v1.hpp"
#include "protocol/kube/meta_types.hpp"

namespace kp::kube {

struct pod_template {
  static constexpr api_resource resource{"", "v1", "PodTemplate", "podtemplates", true};
  object_meta metadata;
  pod_template_spec template_;  // template
  friend bool operator==(const pod_template&, const pod_template&) = default;
};

struct local_object_ref {
  std::string name;
  friend bool operator==(const local_object_ref&, const local_object_ref&) = default;
};

struct scalable_object_ref {
  std::string api_group;
  std::string kind;
  std::string name;
  friend bool operator==(const scalable_object_ref&, const scalable_object_ref&) = default;
};

struct capacity_buffer_spec {
  std::optional<std::string> provisioning_strategy;
  std::optional<local_object_ref> pod_template_ref;
  std::optional<scalable_object_ref> scalable_ref;
  std::optional<std::int64_t> replicas;
  std::optional<std::int64_t> percentage;
  std::optional<resource_list> limits;
  friend bool operator==(const capacity_buffer_spec&, const capacity_buffer_spec&) = default;
};

struct capacity_buffer_status {
  std::optional<local_object_ref> pod_template_ref;
  std::optional<std::int64_t> replicas;
  std::optional<std::int64_t> pod_template_generation;
  std::vector<condition> conditions;
  std::optional<std::string> provisioning_strategy;
  friend bool operator==(const capacity_buffer_status&, const capacity_buffer_status&) = default;
};

struct capacity_buffer {
  static constexpr api_resource resource{"autoscaling.x-k8s.io", "v1beta1", "CapacityBuffer",
                                         "capacitybuffers", true};
  object_meta metadata;
  capacity_buffer_spec spec;
  capacity_buffer_status status;
  friend bool operator==(const capacity_buffer&, const capacity_buffer&) = default;
};

// autoscaling/v1 Scale, the answer of a scalable object's /scale subresource.
struct scale {
  static constexpr api_resource resource{"autoscaling", "v1", "Scale", "", true};
  object_meta metadata;
  std::int64_t spec_replicas = 0;    // spec.replicas
  std::int64_t status_replicas = 0;  // status.replicas
  std::string selector;              // status.selector
  friend bool operator==(const scale&, const scale&) = default;
};

// {"status": {...}} for the status subresource: every field of the status is written, absent
// ones as null, so a field that no longer applies (podTemplateRef after a switch to
// scalableRef) is removed; conditions replace as a list.
std::string capacity_buffer_status_merge_patch(const capacity_buffer_status& status);

}  // namespace kp::kube
