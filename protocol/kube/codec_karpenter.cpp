// JSON fields of karpenter.sh/v1 NodePool and NodeClaim and of the Proxmox CRDs.
#include "protocol/kube/codec_impl.hpp"

namespace kp::kube::codec {

namespace {
constexpr opts quantity{.number_as_text = true};
}

template <class IO>
void fields(IO& io, node_class_reference& v) {
  io("group", v.group, {.required = true});
  io("kind", v.kind, {.required = true});
  io("name", v.name, {.required = true});
}

// The NodeClaim spec fields shared with a NodePool's template.
template <class IO>
void claim_spec_fields(IO& io, node_claim_spec& v) {
  io("taints", v.taints);
  io("startupTaints", v.startup_taints);
  io("requirements", v.requirements);
  io("nodeClassRef", v.node_class_ref, {.required = true});
  io("terminationGracePeriod", v.termination_grace_period);
  io("expireAfter", v.expire_after);
}

template <class IO>
void fields(IO& io, node_claim_spec& v) {
  claim_spec_fields(io, v);
  io.nested("resources", [&](auto& r) { r("requests", v.resource_requests, quantity); });
}

template <class IO>
void fields(IO& io, node_claim_status& v) {
  io("nodeName", v.node_name);
  io("providerID", v.provider_id);
  io("imageID", v.image_id);
  io("capacity", v.capacity, quantity);
  io("allocatable", v.allocatable, quantity);
  io("conditions", v.conditions);
  io("lastPodEventTime", v.last_pod_event_time);
}

template <class IO>
void fields(IO& io, node_claim& v) {
  io("metadata", v.metadata);
  io("spec", v.spec, {.required = true});
  io("status", v.status);
}

template <class IO>
void fields(IO& io, node_claim_template_metadata& v) {
  io("labels", v.labels);
  io("annotations", v.annotations);
}

template <class IO>
void fields(IO& io, node_claim_template& v) {
  io("metadata", v.metadata);
  io.nested("spec", [&](auto& s) { claim_spec_fields(s, v.spec); }, {.required = true});
}

template <class IO>
void fields(IO& io, disruption_budget& v) {
  io("nodes", v.nodes, {.required = true});
  io("schedule", v.schedule);
  io("duration", v.duration);
  io("reasons", v.reasons);
}

template <class IO>
void fields(IO& io, node_pool_disruption& v) {
  io("consolidationPolicy", v.consolidation_policy);
  io("consolidateAfter", v.consolidate_after);
  io("budgets", v.budgets);
}

template <class IO>
void fields(IO& io, node_pool_spec& v) {
  io("template", v.template_, {.required = true});
  io("disruption", v.disruption);
  io("limits", v.limits, quantity);
  io("weight", v.weight);
  io("replicas", v.replicas);
}

template <class IO>
void fields(IO& io, node_pool_status& v) {
  io("resources", v.resources, quantity);
  io("nodes", v.nodes);
  io("nodeClassObservedGeneration", v.node_class_observed_generation);
  io("conditions", v.conditions);
}

template <class IO>
void fields(IO& io, node_pool& v) {
  io("metadata", v.metadata);
  io("spec", v.spec, {.required = true});
  io("status", v.status);
}

// ------------------------------------------------------------------ Proxmox CRDs

template <class IO>
void fields(IO& io, kubelet_configuration& v) {
  io("cpuManagerPolicy", v.cpu_manager_policy);
  io("cpuCFSQuota", v.cpu_cfs_quota);
  io("cpuCFSQuotaPeriod", v.cpu_cfs_quota_period);
  io("topologyManagerPolicy", v.topology_manager_policy);
  io("topologyManagerScope", v.topology_manager_scope);
  io("imageGCHighThresholdPercent", v.image_gc_high_threshold_percent);
  io("imageGCLowThresholdPercent", v.image_gc_low_threshold_percent);
  io("shutdownGracePeriod", v.shutdown_grace_period);
  io("allowedUnsafeSysctls", v.allowed_unsafe_sysctls);
  io("clusterDNS", v.cluster_dns);
  io("maxPods", v.max_pods);
  io("failSwapOn", v.fail_swap_on);
}

template <class IO>
void fields(IO& io, instance_template_reference& v) {
  io("kind", v.kind, {.required = true});
  io("name", v.name, {.required = true});
}

template <class IO>
void fields(IO& io, boot_device& v) {
  io("size", v.size, quantity);
  io("storage", v.storage);
}

template <class IO>
void fields(IO& io, additional_disk& v) {
  io("size", v.size, {.required = true, .number_as_text = true});
  io("storage", v.storage);
  io("cache", v.cache);
  io("discard", v.discard);
  io("iothread", v.iothread);
  io("ssd", v.ssd);
}

template <class IO>
void fields(IO& io, node_class_pci_device& v) {
  io("mapping", v.mapping, {.required = true});
  io("resourceName", v.resource_name, {.required = true});
  io("count", v.count);
  io("pcie", v.pcie);
  io("mdev", v.mdev);
}

template <class IO>
void fields(IO& io, metadata_options& v) {
  io("type", v.type);
  io("templatesRef", v.templates_ref);
  io("valuesRef", v.values_ref);
  io("joinCommand", v.join_command);
}

template <class IO>
void fields(IO& io, security_group& v) {
  io("interface", v.interface);
  io("name", v.name, {.required = true});
}

template <class IO>
void fields(IO& io, proxmox_node_class_spec& v) {
  io("region", v.region);
  io.nested("placementStrategy", [&](auto& p) {
    p("zoneBalance", v.zone_balance);
    p("excludedZones", v.excluded_zones);
    p("minFreeCPU", v.min_free_cpu);
    p("minFreeMemory", v.min_free_memory);
  });
  io("instanceTemplateRef", v.instance_template_ref, {.required = true});
  io("kubeletConfiguration", v.kubelet);
  io("bootDevice", v.boot);
  io("additionalDisks", v.additional_disks);
  io("pciDevices", v.pci_devices);
  io("cloneMode", v.clone_mode);
  io("tags", v.tags);
  io("metadataOptions", v.metadata);
  io("securityGroups", v.security_groups);
  io("resourcePool", v.resource_pool);
  io("nodeLabels", v.node_labels);
  io("sshKeys", v.ssh_keys);
}

template <class IO>
void fields(IO& io, proxmox_node_class_status& v) {
  io("conditions", v.conditions);
  io.nested("resources", [&](auto& r) { r("zones", v.zones, quantity); });
  io("selectedZones", v.selected_zones);
}

template <class IO>
void fields(IO& io, proxmox_node_class& v) {
  io("metadata", v.metadata);
  io("spec", v.spec, {.required = true});
  io("status", v.status);
}

template <class IO>
void fields(IO& io, source_image& v) {
  io("url", v.url, {.required = true});
  io("imageName", v.image_name);
  io("checksum", v.checksum);
  io("checksumType", v.checksum_type);
}

template <class IO>
void fields(IO& io, template_network& v) {
  io("name", v.name);
  io("bridge", v.bridge, {.required = true});
  io("model", v.model);
  io("mtu", v.mtu);
  io("vlan", v.vlan);
  io("firewall", v.firewall);
  io("address4", v.address4);
  io("address6", v.address6);
  io("gateway4", v.gateway4);
  io("gateway6", v.gateway6);
  io("dnsServers", v.dns_servers);
}

template <class IO>
void fields(IO& io, template_pci_device& v) {
  io("mapping", v.mapping, {.required = true});
  io("mdev", v.mdev);
  io("pcie", v.pcie);
  io("xvga", v.xvga);
}

template <class IO>
void fields(IO& io, template_agent& v) {
  io("enabled", v.enabled);
  io("type", v.type);
  io("fsFreezeOnBackup", v.fs_freeze_on_backup);
  io("fsTrimClonedDisks", v.fs_trim_cloned_disks);
}

template <class IO>
void fields(IO& io, proxmox_template_spec& v) {
  io("region", v.region);
  io("description", v.description);
  io("sourceImage", v.source_image, {.required = true});
  io("storageIDs", v.storage_ids);
  io("machine", v.machine);
  io("bios", v.bios);
  io.nested("tpm", [&](auto& t) { t("version", v.tpm_version); });
  io("agent", v.agent);
  io.nested("cpu", [&](auto& c) {
    c("type", v.cpu_type);
    c("flags", v.cpu_flags);
  });
  io.nested("vga", [&](auto& g) {
    g("type", v.vga_type);
    g("memory", v.vga_memory);
  });
  io("network", v.network);
  io("pciDevices", v.pci_devices);
  io("tags", v.tags);
  io("resourcePool", v.resource_pool);
  io("onBoot", v.on_boot);
}

template <class IO>
void fields(IO& io, proxmox_template_status& v) {
  io("conditions", v.conditions);
  io.nested("resources", [&](auto& r) { r("zones", v.zone_count, quantity); });
  io("zones", v.zones);
  io("imageID", v.image_id);
}

template <class IO>
void fields(IO& io, proxmox_template& v) {
  io("metadata", v.metadata);
  io("spec", v.spec, {.required = true});
  io("status", v.status);
}

template <class IO>
void fields(IO& io, proxmox_unmanaged_template_spec& v) {
  io("region", v.region);
  io("templateName", v.template_name);
  io("tags", v.tags);
}

template <class IO>
void fields(IO& io, proxmox_unmanaged_template& v) {
  io("metadata", v.metadata);
  io("spec", v.spec, {.required = true});
  io("status", v.status);
}

}  // namespace kp::kube::codec

KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node_class_reference)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node_claim_spec)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node_claim_status)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node_claim)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node_claim_template_metadata)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node_claim_template)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::disruption_budget)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node_pool_disruption)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node_pool_spec)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node_pool_status)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node_pool)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::kubelet_configuration)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::instance_template_reference)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::boot_device)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::additional_disk)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node_class_pci_device)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::metadata_options)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::security_group)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::proxmox_node_class_spec)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::proxmox_node_class_status)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::proxmox_node_class)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::source_image)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::template_network)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::template_pci_device)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::template_agent)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::proxmox_template_spec)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::proxmox_template_status)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::proxmox_template)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::proxmox_unmanaged_template_spec)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::proxmox_unmanaged_template)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::node_claim)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::node_pool)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::proxmox_node_class)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::proxmox_template)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::proxmox_unmanaged_template)
