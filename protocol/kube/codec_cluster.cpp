// JSON fields of the apps, coordination, policy, storage and certificates objects.
#include "protocol/kube/codec_impl.hpp"

namespace kp::kube::codec {

template <class IO>
void fields(IO& io, daemon_set_status& v) {
  io("currentNumberScheduled", v.current_number_scheduled);
  io("desiredNumberScheduled", v.desired_number_scheduled);
  io("numberReady", v.number_ready);
  io("numberMisscheduled", v.number_misscheduled);
  io("observedGeneration", v.observed_generation);
}

template <class IO>
void fields(IO& io, daemon_set& v) {
  io("metadata", v.metadata);
  io.nested("spec", [&](auto& s) {
    s("selector", v.selector);
    s("template", v.template_);
  });
  io("status", v.status);
}

template <class IO>
void fields(IO& io, replicated_status& v) {
  io("replicas", v.replicas);
  io("readyReplicas", v.ready_replicas);
  io("availableReplicas", v.available_replicas);
  io("observedGeneration", v.observed_generation);
}

template <class IO>
void fields(IO& io, replicated_workload& v) {
  io("metadata", v.metadata);
  io.nested("spec", [&](auto& s) {
    s("replicas", v.replicas);
    s("selector", v.selector);
    s("template", v.template_);
  });
  io("status", v.status);
}

template <class IO>
void fields(IO& io, lease_spec& v) {
  io("holderIdentity", v.holder_identity);
  io("leaseDurationSeconds", v.lease_duration_seconds);
  io("acquireTime", v.acquire_time);
  io("renewTime", v.renew_time);
  io("leaseTransitions", v.lease_transitions);
}

template <class IO>
void fields(IO& io, lease& v) {
  io("metadata", v.metadata);
  io("spec", v.spec);
}

template <class IO>
void fields(IO& io, pod_disruption_budget_spec& v) {
  io("minAvailable", v.min_available);
  io("maxUnavailable", v.max_unavailable);
  io("selector", v.selector);
  io("unhealthyPodEvictionPolicy", v.unhealthy_pod_eviction_policy);
}

template <class IO>
void fields(IO& io, pod_disruption_budget_status& v) {
  io("observedGeneration", v.observed_generation);
  io("disruptionsAllowed", v.disruptions_allowed);
  io("currentHealthy", v.current_healthy);
  io("desiredHealthy", v.desired_healthy);
  io("expectedPods", v.expected_pods);
  io("disruptedPods", v.disrupted_pods);
  io("conditions", v.conditions);
}

template <class IO>
void fields(IO& io, pod_disruption_budget& v) {
  io("metadata", v.metadata);
  io("spec", v.spec);
  io("status", v.status);
}

template <class IO>
void fields(IO& io, eviction& v) {
  io("metadata", v.metadata);
  io.nested("deleteOptions", [&](auto& d) { d("gracePeriodSeconds", v.grace_period_seconds); });
}

template <class IO>
void fields(IO& io, csi_node_driver& v) {
  io("name", v.name, {.required = true});
  io("nodeID", v.node_id);
  io("topologyKeys", v.topology_keys);
  io.nested("allocatable", [&](auto& a) { a("count", v.allocatable_count); });
}

template <class IO>
void fields(IO& io, csi_node& v) {
  io("metadata", v.metadata);
  io.nested("spec", [&](auto& s) { s("drivers", v.drivers); });
}

template <class IO>
void fields(IO& io, topology_selector_requirement& v) {
  io("key", v.key, {.required = true});
  io("values", v.values);
}

template <class IO>
void fields(IO& io, topology_selector_term& v) {
  io("matchLabelExpressions", v.match_label_expressions);
}

template <class IO>
void fields(IO& io, storage_class& v) {
  io("metadata", v.metadata);
  io("provisioner", v.provisioner);
  io("parameters", v.parameters);
  io("reclaimPolicy", v.reclaim_policy);
  io("volumeBindingMode", v.volume_binding_mode);
  io("allowedTopologies", v.allowed_topologies);
}

template <class IO>
void fields(IO& io, volume_attachment& v) {
  io("metadata", v.metadata);
  io.nested("spec", [&](auto& s) {
    s("attacher", v.attacher);
    s("nodeName", v.node_name);
    s.nested("source", [&](auto& src) { src("persistentVolumeName", v.persistent_volume_name); });
  });
  io.nested("status", [&](auto& s) { s("attached", v.attached); });
}

template <class IO>
void fields(IO& io, certificate_signing_request_spec& v) {
  io("request", v.request, {.required = true});
  io("signerName", v.signer_name, {.required = true});
  io("expirationSeconds", v.expiration_seconds);
  io("usages", v.usages);
  io("username", v.username);
  io("uid", v.uid);
  io("groups", v.groups);
}

template <class IO>
void fields(IO& io, certificate_signing_request_status& v) {
  io("conditions", v.conditions);
  io("certificate", v.certificate);
}

template <class IO>
void fields(IO& io, certificate_signing_request& v) {
  io("metadata", v.metadata);
  io("spec", v.spec);
  io("status", v.status);
}

}  // namespace kp::kube::codec

KP_KUBE_INSTANTIATE_FIELDS(kp::kube::daemon_set_status)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::daemon_set)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::replicated_status)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::replicated_workload)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::lease_spec)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::lease)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::pod_disruption_budget_spec)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::pod_disruption_budget_status)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::pod_disruption_budget)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::eviction)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::csi_node_driver)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::csi_node)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::topology_selector_requirement)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::topology_selector_term)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::storage_class)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::volume_attachment)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::certificate_signing_request_spec)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::certificate_signing_request_status)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::certificate_signing_request)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::daemon_set)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::replica_set)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::deployment)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::stateful_set)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::lease)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::pod_disruption_budget)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::eviction)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::csi_node)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::storage_class)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::volume_attachment)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::certificate_signing_request)
