// JSON fields of the shared building blocks (meta_types.hpp) and of the Status object.
#include "protocol/kube/codec_impl.hpp"

namespace kp::kube::codec {

template <class IO>
void fields(IO& io, owner_reference& v) {
  io("apiVersion", v.api_version, {.required = true});
  io("kind", v.kind, {.required = true});
  io("name", v.name, {.required = true});
  io("uid", v.uid, {.required = true});
  io("controller", v.controller);
  io("blockOwnerDeletion", v.block_owner_deletion);
}

template <class IO>
void fields(IO& io, object_meta& v) {
  io("name", v.name);
  io("generateName", v.generate_name);
  io("namespace", v.namespace_);
  io("uid", v.uid);
  io("resourceVersion", v.resource_version);
  io("generation", v.generation);
  io("creationTimestamp", v.creation_timestamp);
  io("deletionTimestamp", v.deletion_timestamp);
  io("deletionGracePeriodSeconds", v.deletion_grace_period_seconds);
  io("labels", v.labels);
  io("annotations", v.annotations);
  io("ownerReferences", v.owner_references);
  io("finalizers", v.finalizers);
}

template <class IO>
void fields(IO& io, condition& v) {
  io("type", v.type, {.required = true});
  io("status", v.status, {.required = true});
  io("reason", v.reason);
  // metav1.Condition requires message (it may be empty): upstream's CRDs refuse a condition
  // without it.
  io("message", v.message, {.keep_empty = true});
  io("lastTransitionTime", v.last_transition_time);
  io("lastHeartbeatTime", v.last_heartbeat_time);
  io("observedGeneration", v.observed_generation);
}

template <class IO>
void fields(IO& io, object_reference& v) {
  io("apiVersion", v.api_version);
  io("kind", v.kind);
  io("namespace", v.namespace_);
  io("name", v.name);
  io("uid", v.uid);
  io("resourceVersion", v.resource_version);
  io("fieldPath", v.field_path);
}

template <class IO>
void fields(IO& io, label_selector_requirement& v) {
  io("key", v.key, {.required = true});
  io("operator", v.operator_, {.required = true});
  io("values", v.values);
}

template <class IO>
void fields(IO& io, label_selector& v) {
  io("matchLabels", v.match_labels);
  io("matchExpressions", v.match_expressions);
}

template <class IO>
void fields(IO& io, node_selector_requirement& v) {
  io("key", v.key, {.required = true});
  io("operator", v.operator_, {.required = true});
  io("values", v.values);
  io("minValues", v.min_values);
}

template <class IO>
void fields(IO& io, node_selector_term& v) {
  io("matchExpressions", v.match_expressions);
  io("matchFields", v.match_fields);
}

template <class IO>
void fields(IO& io, node_selector& v) {
  io("nodeSelectorTerms", v.node_selector_terms);
}

template <class IO>
void fields(IO& io, preferred_scheduling_term& v) {
  io("weight", v.weight, {.required = true});
  io("preference", v.preference);
}

template <class IO>
void fields(IO& io, node_affinity& v) {
  io("requiredDuringSchedulingIgnoredDuringExecution", v.required);
  io("preferredDuringSchedulingIgnoredDuringExecution", v.preferred);
}

template <class IO>
void fields(IO& io, pod_affinity_term& v) {
  io("labelSelector", v.selector);
  io("namespaces", v.namespaces);
  io("namespaceSelector", v.namespace_selector);
  io("topologyKey", v.topology_key, {.required = true});
}

template <class IO>
void fields(IO& io, weighted_pod_affinity_term& v) {
  io("weight", v.weight, {.required = true});
  io("podAffinityTerm", v.term, {.required = true});
}

template <class IO>
void fields(IO& io, pod_affinity& v) {
  io("requiredDuringSchedulingIgnoredDuringExecution", v.required);
  io("preferredDuringSchedulingIgnoredDuringExecution", v.preferred);
}

template <class IO>
void fields(IO& io, affinity& v) {
  io("nodeAffinity", v.node_affinity);
  io("podAffinity", v.pod_affinity);
  io("podAntiAffinity", v.pod_anti_affinity);
}

template <class IO>
void fields(IO& io, taint& v) {
  io("key", v.key, {.required = true});
  io("value", v.value);
  io("effect", v.effect, {.required = true});
  io("timeAdded", v.time_added);
}

template <class IO>
void fields(IO& io, toleration& v) {
  io("key", v.key);
  io("operator", v.operator_);
  io("value", v.value);
  io("effect", v.effect);
  io("tolerationSeconds", v.toleration_seconds);
}

template <class IO>
void fields(IO& io, secret_reference& v) {
  io("name", v.name);
  io("namespace", v.namespace_);
}

template <class IO>
void fields(IO& io, status_cause& v) {
  io("reason", v.reason);
  io("message", v.message);
  io("field", v.field);
}

template <class IO>
void fields(IO& io, api_status& v) {
  io("status", v.status);
  io("message", v.message);
  io("reason", v.reason);
  io("code", v.code);
  io.nested("details", [&](auto& d) {
    d("name", v.details_name);
    d("group", v.details_group);
    d("kind", v.details_kind);
    d("causes", v.causes);
    d("retryAfterSeconds", v.retry_after_seconds);
  });
}

}  // namespace kp::kube::codec

KP_KUBE_INSTANTIATE_FIELDS(kp::kube::owner_reference)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::object_meta)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::condition)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::object_reference)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::label_selector_requirement)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::label_selector)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node_selector_requirement)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node_selector_term)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node_selector)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::preferred_scheduling_term)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node_affinity)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::pod_affinity_term)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::weighted_pod_affinity_term)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::pod_affinity)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::affinity)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::taint)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::toleration)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::secret_reference)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::status_cause)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::api_status)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::api_status)
