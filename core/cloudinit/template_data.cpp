#include "core/cloudinit/template_data.hpp"

#include <algorithm>
#include <array>

namespace kp::cloudinit {

namespace {

using gotemplate::field_options;
using gotemplate::value;

field_options tag(const char* name, bool pointer = false) {
  field_options o;
  o.yaml_name = name;
  o.json_name = name;
  o.omit_empty = true;
  o.pointer = pointer;
  return o;
}

value string_map(const std::map<std::string, std::string>& m) {
  value out = value::string_map();
  for (const auto& [k, v] : m) out.set(k, v);
  return out;
}

template <class T>
value optional_value(const std::optional<T>& o) {
  return o ? value(*o) : value();
}

std::string millicores(std::int64_t milli) {
  return std::to_string(milli) + "m";
}
std::string mebibytes(std::int64_t milli_bytes) {
  return std::to_string(milli_bytes / 1000 / (1 << 20)) + "Mi";
}
std::string gibibytes(std::int64_t milli_bytes) {
  return std::to_string(milli_bytes / 1000 / (std::int64_t{1} << 30)) + "Gi";
}

std::map<std::string, std::string> reserved(const model::resource_list& r) {
  std::map<std::string, std::string> out;
  if (r.has("cpu")) out["cpu"] = millicores(r.milli("cpu"));
  if (r.has("memory")) out["memory"] = mebibytes(r.milli("memory"));
  if (r.has("ephemeral-storage"))
    out["ephemeral-storage"] = gibibytes(r.milli("ephemeral-storage"));
  return out;
}

value kubelet_configuration(const kubelet_settings& k) {
  value taints = value::list();
  for (const auto& t : k.register_with_taints) {
    value item = value::record();
    item.field("Key", t.key, tag("key"));
    item.field("Value", t.value, tag("value"));
    item.field("Effect", t.effect, tag("effect"));
    taints.push_back(item);
  }
  value c = value::record();
  c.field("CPUManagerPolicy", optional_value(k.cpu_manager_policy), tag("cpuManagerPolicy"))
      .field("CPUCFSQuota", optional_value(k.cpu_cfs_quota), tag("cpuCFSQuota", true))
      .field("CPUManagerPolicyOptions", string_map(k.cpu_manager_policy_options),
             tag("cpuManagerPolicyOptions"))
      .field("CPUManagerReconcilePeriod", optional_value(k.cpu_manager_reconcile_period),
             tag("cpuManagerReconcilePeriod", true))
      .field("MemoryManagerPolicy", optional_value(k.memory_manager_policy),
             tag("memoryManagerPolicy"))
      .field("TopologyManagerPolicy", optional_value(k.topology_manager_policy),
             tag("topologyManagerPolicy"))
      .field("TopologyManagerScope", optional_value(k.topology_manager_scope),
             tag("topologyManagerScope"))
      .field("TopologyManagerPolicyOptions", string_map(k.topology_manager_policy_options),
             tag("topologyManagerPolicyOptions"))
      .field("ImageMinimumGCAge", optional_value(k.image_minimum_gc_age),
             tag("imageMinimumGCAge", true))
      .field("ImageMaximumGCAge", optional_value(k.image_maximum_gc_age),
             tag("imageMaximumGCAge", true))
      .field("ImageGCHighThresholdPercent", optional_value(k.image_gc_high_threshold_percent),
             tag("imageGCHighThresholdPercent", true))
      .field("ImageGCLowThresholdPercent", optional_value(k.image_gc_low_threshold_percent),
             tag("imageGCLowThresholdPercent", true))
      .field("ShutdownGracePeriod", optional_value(k.shutdown_grace_period),
             tag("shutdownGracePeriod", true))
      .field("ShutdownGracePeriodCriticalPods",
             optional_value(k.shutdown_grace_period_critical_pods),
             tag("shutdownGracePeriodCriticalPods", true))
      .field("AllowedUnsafeSysctls", value::strings(k.allowed_unsafe_sysctls),
             tag("allowedUnsafeSysctls"))
      .field("ClusterDNS", value::strings(k.cluster_dns), tag("clusterDNS"))
      .field("MaxPods", optional_value(k.max_pods), tag("maxPods", true))
      .field("ProviderID", k.provider_id, tag("providerID"))
      .field("FailSwapOn", optional_value(k.fail_swap_on), tag("failSwapOn", true))
      .field("SystemReserved", string_map(k.system_reserved), tag("systemReserved"))
      .field("KubeReserved", string_map(k.kube_reserved), tag("kubeReserved"))
      .field("EvictionHard", string_map(k.eviction_hard), tag("evictionHard"))
      .field("RegisterWithTaints", taints, tag("registerWithTaints"));
  return c;
}

value metadata(const cloud_init_inputs& in) {
  value m = value::record();
  m.field("Hostname", in.hostname)
      .field("InstanceID", in.instance_id)
      .field("InstanceUUID", in.instance_uuid)
      .field("InstanceType", in.instance_type)
      .field("ProviderID", in.provider_id)
      .field("Region", in.region)
      .field("Zone", in.zone)
      .field("Tags", value::strings(in.tags))
      .field("NodeClass", in.node_class);
  return m;
}

value network(const cloud_init_inputs& in) {
  value interfaces = value::list();
  for (const auto& i : in.interfaces) {
    value v = value::record();
    v.field("Name", i.name)
        .field("MacAddr", i.mac)
        .field("DHCPv4", i.dhcp4)
        .field("DHCPv6", i.dhcp6)
        .field("SLAAC", i.slaac)
        .field("Address4", value::strings(i.address4))
        .field("Address6", value::strings(i.address6))
        .field("Gateway4", i.gateway4)
        .field("Gateway6", i.gateway6)
        .field("MTU", i.mtu)
        .field("NodeAddress4", i.node_address4)
        .field("NodeAddress6", i.node_address6)
        .field("NodeGateway4", i.node_gateway4)
        .field("NodeGateway6", i.node_gateway6);
    interfaces.push_back(v);
  }
  value n = value::record();
  n.field("Interfaces", interfaces)
      .field("NameServers", value::strings(in.name_servers))
      .field("SearchDomains", value::strings(in.search_domains));
  return n;
}

// The kubelet may label itself only with these keys in the kubernetes.io / k8s.io domains.
constexpr std::array<std::string_view, 9> kubelet_allowed_keys{
    "kubernetes.io/hostname",
    "kubernetes.io/arch",
    "kubernetes.io/os",
    "beta.kubernetes.io/instance-type",
    "node.kubernetes.io/instance-type",
    "failure-domain.beta.kubernetes.io/region",
    "failure-domain.beta.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "topology.kubernetes.io/zone"};

bool kubelet_may_set(std::string_view key) {
  auto slash = key.find('/');
  if (slash == std::string_view::npos) return true;
  std::string_view domain = key.substr(0, slash);
  auto in_domain = [&](std::string_view d) {
    return domain == d || (domain.size() > d.size() &&
                           domain.substr(domain.size() - d.size() - 1) == "." + std::string(d));
  };
  if (in_domain("kubernetes.io") || in_domain("k8s.io")) {
    if (domain == "kubelet.kubernetes.io" || domain == "node.kubernetes.io" ||
        domain.ends_with(".kubelet.kubernetes.io") || domain.ends_with(".node.kubernetes.io")) {
      return true;
    }
    return std::find(kubelet_allowed_keys.begin(), kubelet_allowed_keys.end(), key) !=
           kubelet_allowed_keys.end();
  }
  return true;
}

}  // namespace

kubelet_settings kubelet_defaults_for(const instance_types::instance_type& type,
                                      std::string provider_id) {
  kubelet_settings k;
  k.provider_id = std::move(provider_id);
  k.kube_reserved = reserved(type.overhead.kube_reserved);
  k.system_reserved = reserved(type.overhead.system_reserved);
  k.eviction_hard = {
      {"memory.available", "100Mi"}, {"nodefs.available", "10%"}, {"imagefs.available", "15%"}};
  if (type.overhead.eviction_threshold.has("memory")) {
    k.eviction_hard["memory.available"] =
        mebibytes(type.overhead.eviction_threshold.milli("memory"));
  }
  if (type.capacity.has("pods")) k.max_pods = static_cast<int>(type.capacity.milli("pods") / 1000);
  k.register_with_taints.push_back({"karpenter.sh/unregistered", "", "NoExecute"});
  return k;
}

std::string kubelet_node_labels(const std::map<std::string, std::string>& labels) {
  std::string out;
  for (const auto& [k, v] : labels) {
    if (!kubelet_may_set(k)) continue;
    if (!out.empty()) out += ',';
    out += k + "=" + v;
  }
  return out;
}

gotemplate::value user_data_values(const cloud_init_inputs& in) {
  value resources = value::record();
  resources.field("CPU", in.cpus)
      .field("Memory", in.memory_bytes)
      .field("Hugepages1Gi", in.hugepages_1gi)
      .field("Hugepages2Mi", in.hugepages_2mi);
  value kubernetes = value::record();
  kubernetes.field("Version", in.kubernetes_version)
      .field("RootCA", in.root_ca_pem)
      .field("BootstrapToken", in.bootstrap_token)
      .field("KubeletConfiguration", kubelet_configuration(in.kubelet))
      .field("Endpoint", in.endpoint)
      .field("NodeLabels", kubelet_node_labels(in.node_labels));
  value data = value::record();
  data.field("Metadata", metadata(in))
      .field("Network", network(in))
      .field("Resources", resources)
      .field("Kubernetes", kubernetes)
      .field("Values", string_map(in.values));
  return data;
}

gotemplate::value meta_data_values(const cloud_init_inputs& in) {
  return metadata(in);
}

gotemplate::value network_config_values(const cloud_init_inputs& in) {
  return network(in);
}

}  // namespace kp::cloudinit
