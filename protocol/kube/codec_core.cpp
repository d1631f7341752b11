// JSON fields of the core/v1 objects (core_v1.hpp).
#include <type_traits>

#include "protocol/kube/codec_impl.hpp"

namespace kp::kube::codec {

namespace {
constexpr opts quantity{.number_as_text = true};
}

template <class IO>
void fields(IO& io, port_spec& v) {
  io("name", v.name);
  io("containerPort", v.container_port, {.required = true});
  io("hostPort", v.host_port);
  io("hostIP", v.host_ip);
  io("protocol", v.protocol);
}

template <class IO>
void fields(IO& io, resource_requirements& v) {
  io("requests", v.requests, quantity);
  io("limits", v.limits, quantity);
}

template <class IO>
void fields(IO& io, container& v) {
  io("name", v.name, {.required = true});
  io("image", v.image);
  io("resources", v.resources);
  io("ports", v.ports);
  io("restartPolicy", v.restart_policy);
}

template <class IO>
void fields(IO& io, volume& v) {
  io("name", v.name, {.required = true});
  io.nested("persistentVolumeClaim",
            [&](auto& p) { p("claimName", v.persistent_volume_claim, {.required = true}); });
  // Presence of these sources is all the scheduler needs; their contents are not modelled.
  if constexpr (std::is_same_v<IO, decoder>) {
    v.ephemeral = io.has("ephemeral");
    v.host_path = io.has("hostPath");
    v.empty_dir = io.has("emptyDir");
  } else {
    if (v.ephemeral) io.mark("ephemeral");
    if (v.host_path) io.mark("hostPath");
    if (v.empty_dir) io.mark("emptyDir");
  }
}

template <class IO>
void fields(IO& io, topology_spread_constraint& v) {
  io("maxSkew", v.max_skew, {.required = true});
  io("topologyKey", v.topology_key, {.required = true});
  io("whenUnsatisfiable", v.when_unsatisfiable, {.required = true});
  io("labelSelector", v.label_selector);
  io("minDomains", v.min_domains);
  io("nodeAffinityPolicy", v.node_affinity_policy);
  io("nodeTaintsPolicy", v.node_taints_policy);
  io("matchLabelKeys", v.match_label_keys);
}

template <class IO>
void fields(IO& io, pod_spec& v) {
  io("nodeName", v.node_name);
  io("nodeSelector", v.node_selector);
  io("affinity", v.affinity);
  io("tolerations", v.tolerations);
  io("topologySpreadConstraints", v.topology_spread_constraints);
  io("initContainers", v.init_containers);
  io("containers", v.containers);
  io("overhead", v.overhead, quantity);
  io("priority", v.priority);
  io("priorityClassName", v.priority_class_name);
  io("preemptionPolicy", v.preemption_policy);
  io("schedulerName", v.scheduler_name);
  io("serviceAccountName", v.service_account_name);
  io("restartPolicy", v.restart_policy);
  io("terminationGracePeriodSeconds", v.termination_grace_period_seconds);
  io("hostNetwork", v.host_network);
  io("volumes", v.volumes);
}

template <class IO>
void fields(IO& io, pod_status& v) {
  io("phase", v.phase);
  io("conditions", v.conditions);
  io("nominatedNodeName", v.nominated_node_name);
  io("startTime", v.start_time);
}

template <class IO>
void fields(IO& io, pod& v) {
  io("metadata", v.metadata);
  io("spec", v.spec);
  io("status", v.status);
}

template <class IO>
void fields(IO& io, pod_template_spec& v) {
  io("metadata", v.metadata);
  io("spec", v.spec);
}

template <class IO>
void fields(IO& io, node_spec& v) {
  io("providerID", v.provider_id);
  io("unschedulable", v.unschedulable);
  io("taints", v.taints);
  io("podCIDR", v.pod_cidr);
}

template <class IO>
void fields(IO& io, node_address& v) {
  io("type", v.type, {.required = true});
  io("address", v.address, {.required = true});
}

template <class IO>
void fields(IO& io, node_system_info& v) {
  io("machineID", v.machine_id);
  io("systemUUID", v.system_uuid);
  io("bootID", v.boot_id);
  io("kernelVersion", v.kernel_version);
  io("osImage", v.os_image);
  io("containerRuntimeVersion", v.container_runtime_version);
  io("kubeletVersion", v.kubelet_version);
  io("operatingSystem", v.operating_system);
  io("architecture", v.architecture);
}

template <class IO>
void fields(IO& io, attached_volume& v) {
  io("name", v.name);
  io("devicePath", v.device_path);
}

template <class IO>
void fields(IO& io, node_status& v) {
  io("capacity", v.capacity, quantity);
  io("allocatable", v.allocatable, quantity);
  io("conditions", v.conditions);
  io("addresses", v.addresses);
  io("nodeInfo", v.node_info);
  io("volumesInUse", v.volumes_in_use);
  io("volumesAttached", v.volumes_attached);
}

template <class IO>
void fields(IO& io, node& v) {
  io("metadata", v.metadata);
  io("spec", v.spec);
  io("status", v.status);
}

template <class IO>
void fields(IO& io, namespace_object& v) {
  io("metadata", v.metadata);
  io.nested("status", [&](auto& s) { s("phase", v.phase); });
}

template <class IO>
void fields(IO& io, secret& v) {
  io("metadata", v.metadata);
  io("type", v.type);
  io("data", v.data);
  io("stringData", v.string_data);
  io("immutable", v.immutable);
}

template <class IO>
void fields(IO& io, config_map& v) {
  io("metadata", v.metadata);
  io("data", v.data);
  io("binaryData", v.binary_data);
}

template <class IO>
void fields(IO& io, event_source& v) {
  io("component", v.component);
  io("host", v.host);
}

template <class IO>
void fields(IO& io, event& v) {
  io("metadata", v.metadata);
  io("involvedObject", v.involved_object);
  io("reason", v.reason);
  io("message", v.message);
  io("type", v.type);
  io("count", v.count);
  io("firstTimestamp", v.first_timestamp);
  io("lastTimestamp", v.last_timestamp);
  io("eventTime", v.event_time);
  io("source", v.source);
  io("reportingComponent", v.reporting_component);
  io("reportingInstance", v.reporting_instance);
  io("action", v.action);
}

template <class IO>
void fields(IO& io, persistent_volume_spec& v) {
  io("capacity", v.capacity, quantity);
  io("accessModes", v.access_modes);
  io("storageClassName", v.storage_class_name);
  io("persistentVolumeReclaimPolicy", v.persistent_volume_reclaim_policy);
  io("volumeMode", v.volume_mode);
  io("claimRef", v.claim_ref);
  io.nested("nodeAffinity", [&](auto& a) { a("required", v.node_affinity); });
  io.nested("csi", [&](auto& c) {
    c("driver", v.csi_driver, {.required = true});
    c("volumeHandle", v.csi_volume_handle);
  });
}

template <class IO>
void fields(IO& io, persistent_volume& v) {
  io("metadata", v.metadata);
  io("spec", v.spec);
  io.nested("status", [&](auto& s) { s("phase", v.phase); });
}

template <class IO>
void fields(IO& io, persistent_volume_claim_spec& v) {
  io("accessModes", v.access_modes);
  io("storageClassName", v.storage_class_name);
  io("volumeName", v.volume_name);
  io("volumeMode", v.volume_mode);
  io("resources", v.resources);
}

template <class IO>
void fields(IO& io, persistent_volume_claim_status& v) {
  io("phase", v.phase);
  io("accessModes", v.access_modes);
  io("capacity", v.capacity, quantity);
}

template <class IO>
void fields(IO& io, persistent_volume_claim& v) {
  io("metadata", v.metadata);
  io("spec", v.spec);
  io("status", v.status);
}

}  // namespace kp::kube::codec

KP_KUBE_INSTANTIATE_FIELDS(kp::kube::port_spec)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::resource_requirements)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::container)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::volume)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::topology_spread_constraint)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::pod_spec)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::pod_status)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::pod)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::pod_template_spec)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node_spec)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node_address)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node_system_info)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::attached_volume)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node_status)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::namespace_object)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::secret)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::config_map)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::event_source)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::event)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::persistent_volume_spec)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::persistent_volume)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::persistent_volume_claim_spec)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::persistent_volume_claim_status)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::persistent_volume_claim)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::pod)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::node)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::namespace_object)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::secret)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::config_map)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::event)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::persistent_volume)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::persistent_volume_claim)
