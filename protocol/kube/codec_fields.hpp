#pragma once
// Internal to protocol/kube: one declaration per modelled struct of the function listing its
// JSON fields; each is defined and instantiated (for decoder and encoder) in one codec_*.cpp.
#include "protocol/kube/api_status.hpp"
#include "protocol/kube/apps_v1.hpp"
#include "protocol/kube/autoscaling_v1beta1.hpp"
#include "protocol/kube/certificates_v1.hpp"
#include "protocol/kube/coordination_v1.hpp"
#include "protocol/kube/core_v1.hpp"
#include "protocol/kube/karpenter_v1.hpp"
#include "protocol/kube/karpenter_v1alpha1.hpp"
#include "protocol/kube/meta_types.hpp"
#include "protocol/kube/policy_v1.hpp"
#include "protocol/kube/proxmox_v1alpha1.hpp"
#include "protocol/kube/storage_v1.hpp"

namespace kp::kube::codec {

#define KP_KUBE_DECLARE_FIELDS(T) \
  template <class IO>             \
  void fields(IO& io, T& v);

// meta_types.hpp
KP_KUBE_DECLARE_FIELDS(owner_reference)
KP_KUBE_DECLARE_FIELDS(object_meta)
KP_KUBE_DECLARE_FIELDS(condition)
KP_KUBE_DECLARE_FIELDS(object_reference)
KP_KUBE_DECLARE_FIELDS(label_selector_requirement)
KP_KUBE_DECLARE_FIELDS(label_selector)
KP_KUBE_DECLARE_FIELDS(node_selector_requirement)
KP_KUBE_DECLARE_FIELDS(node_selector_term)
KP_KUBE_DECLARE_FIELDS(node_selector)
KP_KUBE_DECLARE_FIELDS(preferred_scheduling_term)
KP_KUBE_DECLARE_FIELDS(node_affinity)
KP_KUBE_DECLARE_FIELDS(pod_affinity_term)
KP_KUBE_DECLARE_FIELDS(weighted_pod_affinity_term)
KP_KUBE_DECLARE_FIELDS(pod_affinity)
KP_KUBE_DECLARE_FIELDS(affinity)
KP_KUBE_DECLARE_FIELDS(taint)
KP_KUBE_DECLARE_FIELDS(toleration)
KP_KUBE_DECLARE_FIELDS(secret_reference)
// core_v1.hpp
KP_KUBE_DECLARE_FIELDS(port_spec)
KP_KUBE_DECLARE_FIELDS(resource_requirements)
KP_KUBE_DECLARE_FIELDS(container)
KP_KUBE_DECLARE_FIELDS(volume)
KP_KUBE_DECLARE_FIELDS(topology_spread_constraint)
KP_KUBE_DECLARE_FIELDS(pod_spec)
KP_KUBE_DECLARE_FIELDS(pod_status)
KP_KUBE_DECLARE_FIELDS(pod)
KP_KUBE_DECLARE_FIELDS(pod_template_spec)
KP_KUBE_DECLARE_FIELDS(node_spec)
KP_KUBE_DECLARE_FIELDS(node_address)
KP_KUBE_DECLARE_FIELDS(node_system_info)
KP_KUBE_DECLARE_FIELDS(attached_volume)
KP_KUBE_DECLARE_FIELDS(node_status)
KP_KUBE_DECLARE_FIELDS(node)
KP_KUBE_DECLARE_FIELDS(namespace_object)
KP_KUBE_DECLARE_FIELDS(secret)
KP_KUBE_DECLARE_FIELDS(config_map)
KP_KUBE_DECLARE_FIELDS(event_source)
KP_KUBE_DECLARE_FIELDS(event)
KP_KUBE_DECLARE_FIELDS(persistent_volume_spec)
KP_KUBE_DECLARE_FIELDS(persistent_volume)
KP_KUBE_DECLARE_FIELDS(persistent_volume_claim_spec)
KP_KUBE_DECLARE_FIELDS(persistent_volume_claim_status)
KP_KUBE_DECLARE_FIELDS(persistent_volume_claim)
// apps_v1.hpp, coordination_v1.hpp, policy_v1.hpp, storage_v1.hpp, certificates_v1.hpp
KP_KUBE_DECLARE_FIELDS(daemon_set_status)
KP_KUBE_DECLARE_FIELDS(daemon_set)
KP_KUBE_DECLARE_FIELDS(replicated_status)
KP_KUBE_DECLARE_FIELDS(replicated_workload)
KP_KUBE_DECLARE_FIELDS(lease_spec)
KP_KUBE_DECLARE_FIELDS(lease)
KP_KUBE_DECLARE_FIELDS(pod_disruption_budget_spec)
KP_KUBE_DECLARE_FIELDS(pod_disruption_budget_status)
KP_KUBE_DECLARE_FIELDS(pod_disruption_budget)
KP_KUBE_DECLARE_FIELDS(eviction)
KP_KUBE_DECLARE_FIELDS(csi_node_driver)
KP_KUBE_DECLARE_FIELDS(csi_node)
KP_KUBE_DECLARE_FIELDS(topology_selector_requirement)
KP_KUBE_DECLARE_FIELDS(topology_selector_term)
// autoscaling_v1beta1.hpp
KP_KUBE_DECLARE_FIELDS(pod_template)
KP_KUBE_DECLARE_FIELDS(local_object_ref)
KP_KUBE_DECLARE_FIELDS(scalable_object_ref)
KP_KUBE_DECLARE_FIELDS(capacity_buffer_spec)
KP_KUBE_DECLARE_FIELDS(capacity_buffer_status)
KP_KUBE_DECLARE_FIELDS(capacity_buffer)
KP_KUBE_DECLARE_FIELDS(scale)
KP_KUBE_DECLARE_FIELDS(storage_class)
KP_KUBE_DECLARE_FIELDS(volume_attachment)
KP_KUBE_DECLARE_FIELDS(certificate_signing_request_spec)
KP_KUBE_DECLARE_FIELDS(certificate_signing_request_status)
KP_KUBE_DECLARE_FIELDS(certificate_signing_request)
KP_KUBE_DECLARE_FIELDS(status_cause)
KP_KUBE_DECLARE_FIELDS(api_status)
// karpenter_v1.hpp
KP_KUBE_DECLARE_FIELDS(node_class_reference)
KP_KUBE_DECLARE_FIELDS(node_claim_spec)
KP_KUBE_DECLARE_FIELDS(node_claim_status)
KP_KUBE_DECLARE_FIELDS(node_claim)
KP_KUBE_DECLARE_FIELDS(node_claim_template_metadata)
KP_KUBE_DECLARE_FIELDS(node_claim_template)
KP_KUBE_DECLARE_FIELDS(disruption_budget)
KP_KUBE_DECLARE_FIELDS(node_pool_disruption)
KP_KUBE_DECLARE_FIELDS(node_pool_spec)
KP_KUBE_DECLARE_FIELDS(node_pool_status)
KP_KUBE_DECLARE_FIELDS(node_pool)
// karpenter_v1alpha1.hpp
KP_KUBE_DECLARE_FIELDS(node_overlay_spec)
KP_KUBE_DECLARE_FIELDS(node_overlay_status)
KP_KUBE_DECLARE_FIELDS(node_overlay)
// proxmox_v1alpha1.hpp
KP_KUBE_DECLARE_FIELDS(kubelet_configuration)
KP_KUBE_DECLARE_FIELDS(instance_template_reference)
KP_KUBE_DECLARE_FIELDS(boot_device)
KP_KUBE_DECLARE_FIELDS(additional_disk)
KP_KUBE_DECLARE_FIELDS(node_class_pci_device)
KP_KUBE_DECLARE_FIELDS(metadata_options)
KP_KUBE_DECLARE_FIELDS(security_group)
KP_KUBE_DECLARE_FIELDS(proxmox_node_class_spec)
KP_KUBE_DECLARE_FIELDS(proxmox_node_class_status)
KP_KUBE_DECLARE_FIELDS(proxmox_node_class)
KP_KUBE_DECLARE_FIELDS(source_image)
KP_KUBE_DECLARE_FIELDS(template_network)
KP_KUBE_DECLARE_FIELDS(template_pci_device)
KP_KUBE_DECLARE_FIELDS(template_agent)
KP_KUBE_DECLARE_FIELDS(proxmox_template_spec)
KP_KUBE_DECLARE_FIELDS(proxmox_template_status)
KP_KUBE_DECLARE_FIELDS(proxmox_template)
KP_KUBE_DECLARE_FIELDS(proxmox_unmanaged_template_spec)
KP_KUBE_DECLARE_FIELDS(proxmox_unmanaged_template)

#undef KP_KUBE_DECLARE_FIELDS

}  // namespace kp::kube::codec
