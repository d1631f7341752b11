#pragma once
// inspect() for core/cloudinit's plain rendering inputs, so a launch request carries them as
// data (core/ may not include CAF; ADL finds these in the types' namespace). Every field listed.
#include <caf/meta/type_name.hpp>

#include "core/cloudinit/join_command.hpp"
#include "core/cloudinit/render_cloud_init.hpp"
#include "core/cloudinit/template_data.hpp"
#include "core/cloudinit/vm_render.hpp"
#include "protocol/optional_field.hpp"

namespace kp::cloudinit {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, network_interface_data& x) {
  return f(caf::meta::type_name("network_interface_data"), x.name, x.mac, x.dhcp4, x.dhcp6, x.slaac,
           x.address4, x.address6, x.gateway4, x.gateway6, x.mtu, x.node_address4, x.node_address6,
           x.node_gateway4, x.node_gateway6);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, kubelet_taint& x) {
  return f(caf::meta::type_name("kubelet_taint"), x.key, x.value, x.effect);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, kubelet_settings& x) {
  using protocol::optional_field;
  return f(
      caf::meta::type_name("kubelet_settings"), optional_field(x.cpu_manager_policy),
      optional_field(x.cpu_cfs_quota), x.cpu_manager_policy_options,
      optional_field(x.cpu_manager_reconcile_period), optional_field(x.memory_manager_policy),
      optional_field(x.topology_manager_policy), optional_field(x.topology_manager_scope),
      x.topology_manager_policy_options, optional_field(x.image_minimum_gc_age),
      optional_field(x.image_maximum_gc_age), optional_field(x.image_gc_high_threshold_percent),
      optional_field(x.image_gc_low_threshold_percent), optional_field(x.shutdown_grace_period),
      optional_field(x.shutdown_grace_period_critical_pods), x.allowed_unsafe_sysctls,
      x.cluster_dns, optional_field(x.max_pods), x.provider_id, optional_field(x.fail_swap_on),
      x.system_reserved, x.kube_reserved, x.eviction_hard, x.register_with_taints);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, cloud_init_inputs& x) {
  return f(caf::meta::type_name("cloud_init_inputs"), x.hostname, x.instance_id, x.instance_uuid,
           x.instance_type, x.provider_id, x.region, x.zone, x.tags, x.node_class, x.interfaces,
           x.name_servers, x.search_domains, x.cpus, x.memory_bytes, x.hugepages_1gi,
           x.hugepages_2mi, x.kubernetes_version, x.root_ca_pem, x.bootstrap_token, x.endpoint,
           x.kubelet, x.node_labels, x.values);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, template_sources& x) {
  return f(caf::meta::type_name("template_sources"), x.origin, x.documents);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, nocloud_plan& x) {
  return f(caf::meta::type_name("nocloud_plan"), x.sources, x.inputs);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, join_plan& x) {
  return f(caf::meta::type_name("join_plan"), x.node_class, x.command_template, x.node_name,
           x.endpoint, x.bootstrap_token, x.ca_pem, x.labels, x.taints, x.max_pods, x.values,
           x.node_label_templates);
}

}  // namespace kp::cloudinit
