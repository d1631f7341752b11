#pragma once
// CapacityBuffer sizing (autoscaling.x-k8s.io/v1beta1, as Karpenter v1.14 and the Cluster
// Autoscaler read it): a pure function from buffers, the pod templates they name and the
// replicas of the scalable objects they name, to the chunks in effect per buffer and the
// virtual pods that stand for them in the provisioning simulation. A bad buffer gets a verdict
// naming its field; nothing here throws on input.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/pod.hpp"
#include "core/model/resource_list.hpp"

namespace kp::capacity_buffer {

// Annotations every virtual pod carries (Karpenter's), so no part mistakes one for a real pod.
inline constexpr std::string_view virtual_pod_annotation = "karpenter.sh/capacity-buffer-fake-pod";
inline constexpr std::string_view buffer_name_annotation = "karpenter.sh/capacity-buffer-name";
inline constexpr std::string_view buffer_namespace_annotation =
    "karpenter.sh/capacity-buffer-namespace";

// Condition types and reasons on a buffer's status (Karpenter's).
namespace conditions {
inline constexpr std::string_view ready_for_provisioning = "ReadyForProvisioning";
inline constexpr std::string_view provisioning = "Provisioning";
}  // namespace conditions
namespace reasons {
inline constexpr std::string_view resolved = "Resolved";
inline constexpr std::string_view pod_template_not_found = "PodTemplateNotFound";
inline constexpr std::string_view scalable_ref_not_found = "ScalableRefNotFound";
inline constexpr std::string_view resolution_failed = "ResolutionFailed";
inline constexpr std::string_view fits_existing_capacity = "FitsExistingCapacity";
inline constexpr std::string_view requires_new_capacity = "RequiresNewCapacity";
inline constexpr std::string_view not_ready_for_provisioning = "NotReadyForProvisioning";
inline constexpr std::string_view buffer_empty = "BufferEmpty";
}  // namespace reasons

// More chunks than this in one buffer is refused (a typo such as replicas: 100000 would
// otherwise make the simulation place that many pods every round).
inline constexpr std::int64_t max_chunks = 1000;

struct scalable_ref {
  std::string api_group;  // "" or "apps"
  std::string kind;       // Deployment, ReplicaSet or StatefulSet
  std::string name;
  friend bool operator==(const scalable_ref&, const scalable_ref&) = default;
};

// A buffer's spec as the API holds it (the CRD already refuses most bad shapes; this judges
// them again, because an older CRD may be installed).
struct buffer {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::optional<std::string> pod_template_ref;
  std::optional<scalable_ref> scalable;
  std::optional<std::int64_t> replicas;
  std::optional<std::int64_t> percentage;
  std::optional<model::resource_list> limits;
};

// A PodTemplate in a buffer's namespace, already translated; `error` when it does not translate.
struct pod_template {
  std::string namespace_;
  std::string name;
  std::int64_t generation = 0;
  model::pod pod;
  std::string error;
};

// A scalable object: its replicas (from the scale subresource) and its pod template.
struct scalable_object {
  std::string namespace_;
  scalable_ref ref;
  std::int64_t replicas = 0;
  model::pod pod;
  std::string error;
};

struct inputs {
  std::vector<buffer> buffers;
  std::vector<pod_template> templates;
  std::vector<scalable_object> scalables;
};

struct resolution {
  std::string namespace_;
  std::string name;
  bool ready = false;         // ReadyForProvisioning
  std::int64_t replicas = 0;  // chunks in effect (status.replicas)
  std::string reason;         // one of reasons::
  std::string field;          // the field a bad buffer is judged by ("" when ready)
  std::string message;        // for a person; names the field and why
  std::optional<std::string> status_pod_template;  // status.podTemplateRef.name
  std::optional<std::int64_t> pod_template_generation;
  std::vector<model::pod> pods;  // the virtual pods, `replicas` of them
};

// Whether a scalable kind is one this product reads (apps/v1 Deployment, ReplicaSet,
// StatefulSet).
bool is_supported_scalable(const scalable_ref& ref);

// The chunks a percentage asks for: ceil(scalable * percentage / 100), at least 1 when both are
// positive.
std::int64_t percentage_chunks(std::int64_t scalable_replicas, std::int64_t percentage);

// How many chunks of `requests` fit in `limits`: the minimum over the resources both name with
// a non-zero request; nullopt when no such resource exists (the limits then constrain nothing).
std::optional<std::int64_t> chunks_within_limits(const model::resource_list& limits,
                                                 const model::resource_list& requests);

// One resolution per buffer, in the order given.
std::vector<resolution> resolve(const inputs& in);

// True for a pod made by resolve().
bool is_virtual_pod(const model::pod& p);
// "namespace/name" of the buffer a virtual pod stands for ("" for a real pod).
std::string buffer_key_of(const model::pod& p);

}  // namespace kp::capacity_buffer
