#pragma once
// The data cloud-init templates see, with the Go provider's names (.Metadata, .Network,
// .Resources, .Kubernetes, .Values; kpp.md section 5), so templates written for it render here
// unchanged. Extensions: .Kubernetes.Endpoint (CLUSTER_ENDPOINT) and .Kubernetes.NodeLabels.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/gotemplate/value.hpp"
#include "core/instance_types/instance_type.hpp"

namespace kp::cloudinit {

struct network_interface_data {
  std::string name;  // eth<N> for net<N>
  std::string mac;
  bool dhcp4 = true;
  bool dhcp6 = false;
  bool slaac = false;
  std::vector<std::string> address4;  // CIDR, e.g. 10.0.0.5/24
  std::vector<std::string> address6;
  std::string gateway4;
  std::string gateway6;
  int mtu = 1500;
  std::string node_address4;  // the host bridge's CIDR and gateway
  std::string node_address6;
  std::string node_gateway4;
  std::string node_gateway6;
};

struct kubelet_taint {
  std::string key;
  std::string value;
  std::string effect;
};

// The KubeletConfiguration keys the node class can set (kpp.md section 6), unset = omitted.
struct kubelet_settings {
  std::optional<std::string> cpu_manager_policy;
  std::optional<bool> cpu_cfs_quota;
  std::map<std::string, std::string> cpu_manager_policy_options;
  std::optional<std::string> cpu_manager_reconcile_period;
  std::optional<std::string> memory_manager_policy;
  std::optional<std::string> topology_manager_policy;
  std::optional<std::string> topology_manager_scope;
  std::map<std::string, std::string> topology_manager_policy_options;
  std::optional<std::string> image_minimum_gc_age;
  std::optional<std::string> image_maximum_gc_age;
  std::optional<int> image_gc_high_threshold_percent;
  std::optional<int> image_gc_low_threshold_percent;
  std::optional<std::string> shutdown_grace_period;
  std::optional<std::string> shutdown_grace_period_critical_pods;
  std::vector<std::string> allowed_unsafe_sysctls;
  std::vector<std::string> cluster_dns;
  std::optional<int> max_pods;
  std::string provider_id;
  std::optional<bool> fail_swap_on;
  std::map<std::string, std::string> system_reserved;
  std::map<std::string, std::string> kube_reserved;
  std::map<std::string, std::string> eviction_hard;
  std::vector<kubelet_taint> register_with_taints;
};

// The reserved resources and eviction threshold of an instance type, written as the Go provider
// writes them ("100m", "384Mi", "1Gi"), evictionHard with its nodefs/imagefs defaults, the pods
// limit as maxPods, and registerWithTaints = karpenter.sh/unregistered:NoExecute.
kubelet_settings kubelet_defaults_for(const instance_types::instance_type& type,
                                      std::string provider_id);

struct cloud_init_inputs {
  // .Metadata
  std::string hostname;       // the NodeClaim name
  std::string instance_id;    // the VMID
  std::string instance_uuid;  // smbios1 uuid
  std::string instance_type;
  std::string provider_id;
  std::string region;
  std::string zone;
  std::vector<std::string> tags;
  std::string node_class;
  // .Network
  std::vector<network_interface_data> interfaces;
  std::vector<std::string> name_servers;
  std::vector<std::string> search_domains;
  // .Resources
  std::int64_t cpus = 0;
  std::int64_t memory_bytes = 0;
  std::int64_t hugepages_1gi = 0;
  std::int64_t hugepages_2mi = 0;
  // .Kubernetes
  std::string kubernetes_version;
  std::string root_ca_pem;
  std::string bootstrap_token;  // a credential: lives only in the rendered ISO
  std::string endpoint;
  kubelet_settings kubelet;
  std::map<std::string, std::string> node_labels;
  // .Values (from valuesRef)
  std::map<std::string, std::string> values;
};

// The labels a kubelet may set on its own Node (--node-labels): kubernetes.io and k8s.io
// domains only for the well-known allowed keys, as the NodeRestriction admission plugin allows;
// the controller syncs the rest at registration. "k=v,k2=v2", keys sorted.
std::string kubelet_node_labels(const std::map<std::string, std::string>& labels);

gotemplate::value user_data_values(const cloud_init_inputs& in);       // for user-data
gotemplate::value meta_data_values(const cloud_init_inputs& in);       // meta-data, vendor-data
gotemplate::value network_config_values(const cloud_init_inputs& in);  // network-config

}  // namespace kp::cloudinit
