#include "bench/controller_scale/scale_world.hpp"

#include <algorithm>
#include <array>
#include <boost/json.hpp>
#include <cstdio>

namespace kp::bench {
namespace {

namespace json = boost::json;

constexpr const char* pod_template_hash = "6d8f9c7b5";
constexpr const char* instance_type = "s1.16VCPU-64GB";
constexpr const char* tainted_key = "dedicated";
// What an s1.16VCPU-64GB node reports: 16 CPUs and 64 GiB less kube-reserved, system-reserved
// and the eviction threshold (core/instance_types).
constexpr std::int64_t node_cpu_m = 15890;
constexpr std::int64_t node_memory_mi = 65536 - 384 - 64 - 100;
constexpr int node_max_pods = 110;

// splitmix64: every pod's shape comes from its index alone, so batches are independent.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Five base-36 characters, distinct for distinct indexes below 36^5 (7919 is prime to 36).
std::string suffix(std::uint64_t index, std::uint64_t salt) {
  static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::uint64_t v = (index * 7919 + salt) % 60466176ULL;
  std::string out(5, 'a');
  for (int i = 4; i >= 0; --i) {
    out[static_cast<std::size_t>(i)] = alphabet[v % 36];
    v /= 36;
  }
  return out;
}

std::string uuid_of(std::uint64_t kind, std::uint64_t index) {
  auto a = mix(kind * 1000003 + index), b = mix(a);
  char buf[40];
  std::snprintf(
      buf, sizeof buf, "%08llx-%04llx-4%03llx-8%03llx-%012llx",
      static_cast<unsigned long long>(a >> 32), static_cast<unsigned long long>((a >> 16) & 0xffff),
      static_cast<unsigned long long>(a & 0xfff), static_cast<unsigned long long>(b >> 52),
      static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

std::string nodeclaim_name(const scale_shape& s, int i) {
  return s.nodepool + "-" + suffix(static_cast<std::uint64_t>(i), 12345);
}

std::string node_name(const scale_shape& s, int i) {
  if (i < s.owned_nodes) return nodeclaim_name(s, i);
  return "worker-" + std::to_string(i - s.owned_nodes);
}

bool foreign_tainted(const scale_shape& s, int node) {
  return node >= s.owned_nodes && (node - s.owned_nodes) % 2 == 1;
}

std::string host_of(const scale_shape& s, int node) {
  return "pve" + std::to_string(node % s.hosts + 1);
}

std::string zone_of(const scale_shape& s, int node) {
  if (node < s.owned_nodes) return host_of(s, node);
  static const std::array<const char*, 3> zones{"dc1-a", "dc1-b", "dc1-c"};
  return zones[static_cast<std::size_t>(node % 3)];
}

int vmid_of(int node) {
  return 10000 + node;
}

// The pod's requests, kind and label value, from Karpenter's diverse benchmark (the sets of
// bench-scheduling's `diverse` case): five equal kinds, CPU and memory from fixed sets.
struct pod_shape {
  std::int64_t cpu_m;
  std::int64_t memory_mi;
  int kind;  // 0 generic, 1 zonal spread, 2 hostname spread, 3 zonal affinity, 4 anti-affinity
  int value;
};

pod_shape shape_of(int i) {
  static const std::array<std::int64_t, 5> cpus{100, 250, 500, 1000, 1500};
  static const std::array<std::int64_t, 6> mems{100, 256, 512, 1024, 2048, 4096};
  auto r = mix(static_cast<std::uint64_t>(i) + 42);
  return {cpus[r % 5], mems[(r >> 8) % 6], i % 5, static_cast<int>((r >> 16) % 7)};
}

// Where each pod runs: round robin over the nodes, skipping a node the pod does not fit on, the
// way a spreading scheduler fills a cluster to ~85% of its CPU.
const std::vector<int>& placement(const scale_shape& s) {
  static std::vector<int> cached;
  static std::pair<int, int> cached_for{-1, -1};
  if (cached_for == std::pair{s.nodes, s.pods}) return cached;
  std::vector<std::int64_t> cpu(static_cast<std::size_t>(s.nodes), node_cpu_m);
  std::vector<std::int64_t> mem(static_cast<std::size_t>(s.nodes), node_memory_mi);
  std::vector<int> count(static_cast<std::size_t>(s.nodes), 0);
  cached.assign(static_cast<std::size_t>(s.pods), -1);
  int cursor = 0;
  for (int i = 0; i < s.pods; ++i) {
    auto p = shape_of(i);
    for (int tries = 0; tries < s.nodes; ++tries) {
      auto n = static_cast<std::size_t>((cursor + tries) % s.nodes);
      if (cpu[n] >= p.cpu_m && mem[n] >= p.memory_mi && count[n] < node_max_pods) {
        cpu[n] -= p.cpu_m;
        mem[n] -= p.memory_mi;
        ++count[n];
        cached[static_cast<std::size_t>(i)] = static_cast<int>(n);
        cursor = static_cast<int>(n) + 1;
        break;
      }
    }
    if (cached[static_cast<std::size_t>(i)] < 0) cached[static_cast<std::size_t>(i)] = i % s.nodes;
  }
  cached_for = {s.nodes, s.pods};
  return cached;
}

json::object label_selector_of(const char* key, const std::string& value) {
  return {{"matchLabels", json::object{{key, value}}}};
}

json::object condition(const char* type, const char* status, const std::string& at,
                       const char* reason = "") {
  json::object c{{"type", type}, {"status", status}, {"lastTransitionTime", at}};
  if (*reason != 0) c["reason"] = reason;
  return c;
}

std::string batches_body(json::array items) {
  return json::serialize(json::object{{"items", std::move(items)}});
}

template <class Make>
std::vector<std::string> in_batches(int count, int batch, Make make) {
  std::vector<std::string> out;
  json::array items;
  for (int i = 0; i < count; ++i) {
    items.push_back(make(i));
    if (static_cast<int>(items.size()) == batch) {
      out.push_back(batches_body(std::move(items)));
      items = {};
    }
  }
  if (!items.empty()) out.push_back(batches_body(std::move(items)));
  return out;
}

json::object resources(std::int64_t cpu_m, std::int64_t memory_mi, int pods) {
  return {{"cpu", std::to_string(cpu_m) + "m"},
          {"memory", std::to_string(memory_mi) + "Mi"},
          {"ephemeral-storage", "30Gi"},
          {"pods", std::to_string(pods)}};
}

json::object node_object(const scale_shape& s, int i) {
  auto name = node_name(s, i);
  bool ours = i < s.owned_nodes;
  json::object labels{{"kubernetes.io/hostname", name},
                      {"kubernetes.io/os", "linux"},
                      {"kubernetes.io/arch", "amd64"},
                      {"beta.kubernetes.io/os", "linux"},
                      {"beta.kubernetes.io/arch", "amd64"},
                      {"topology.kubernetes.io/zone", zone_of(s, i)},
                      {"node.kubernetes.io/instance-type", ours ? instance_type : "bare-metal"}};
  json::object spec;
  json::array finalizers;
  if (ours) {
    labels["topology.kubernetes.io/region"] = s.region;
    labels["karpenter.sh/nodepool"] = s.nodepool;
    labels["karpenter.sh/capacity-type"] = "on-demand";
    labels["karpenter.sh/registered"] = "true";
    labels["karpenter.sh/initialized"] = "true";
    labels["karpenter.proxmox.sinextra.dev/instance-family"] = "s1";
    labels["karpenter.proxmox.sinextra.dev/proxmoxnodeclass"] = s.nodeclass;
    spec["providerID"] = "proxmox://" + s.region + "/" + std::to_string(vmid_of(i));
    finalizers.push_back("karpenter.sh/termination");
  } else {
    labels["topology.kubernetes.io/region"] = "dc1";
    labels["node-role.kubernetes.io/worker"] = "";
    if (foreign_tainted(s, i)) {
      labels["node-role.kubernetes.io/infra"] = "";
      spec["taints"] = json::array{
          json::object{{"key", tainted_key}, {"value", "infra"}, {"effect", "NoSchedule"}}};
    }
  }
  spec["podCIDR"] = "10." + std::to_string(64 + i / 256) + "." + std::to_string(i % 256) + ".0/24";
  json::object metadata{
      {"name", name},
      {"labels", std::move(labels)},
      {"annotations",
       json::object{{"node.alpha.kubernetes.io/ttl", "0"},
                    {"volumes.kubernetes.io/controller-managed-attach-detach", "true"}}}};
  if (!finalizers.empty()) metadata["finalizers"] = std::move(finalizers);
  json::array conditions;
  for (const char* t : {"MemoryPressure", "DiskPressure", "PIDPressure"}) {
    auto c = condition(t, "False", s.created_at, "KubeletHasSufficientMemory");
    c["lastHeartbeatTime"] = s.created_at;
    conditions.push_back(std::move(c));
  }
  auto ready = condition("Ready", "True", s.created_at, "KubeletReady");
  ready["lastHeartbeatTime"] = s.created_at;
  ready["message"] = "kubelet is posting ready status";
  conditions.push_back(std::move(ready));
  std::string ip = "10.1." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 2);
  json::array images;
  for (const char* image :
       {"registry.k8s.io/kube-proxy:v1.30.2", "registry.k8s.io/pause:3.9",
        "docker.io/calico/node:v3.27.3", "docker.io/calico/cni:v3.27.3",
        "registry.k8s.io/coredns/coredns:v1.11.1", "quay.io/prometheus/node-exporter:v1.8.1"}) {
    images.push_back(json::object{{"names", json::array{image}}, {"sizeBytes", 41234567}});
  }
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", std::move(metadata)},
          {"spec", std::move(spec)},
          {"status",
           json::object{
               {"capacity", resources(16000, 65536, node_max_pods)},
               {"allocatable", resources(node_cpu_m, node_memory_mi, node_max_pods)},
               {"conditions", std::move(conditions)},
               {"addresses", json::array{json::object{{"type", "InternalIP"}, {"address", ip}},
                                         json::object{{"type", "Hostname"}, {"address", name}}}},
               {"nodeInfo", json::object{{"machineID", uuid_of(1, static_cast<std::uint64_t>(i))},
                                         {"systemUUID", uuid_of(2, static_cast<std::uint64_t>(i))},
                                         {"bootID", uuid_of(3, static_cast<std::uint64_t>(i))},
                                         {"kernelVersion", "6.1.0-21-amd64"},
                                         {"osImage", "Debian GNU/Linux 12 (bookworm)"},
                                         {"containerRuntimeVersion", "containerd://1.7.15"},
                                         {"kubeletVersion", "v1.30.2"},
                                         {"kubeProxyVersion", "v1.30.2"},
                                         {"operatingSystem", "linux"},
                                         {"architecture", "amd64"}}},
               {"images", std::move(images)}}}};
}

json::object nodeclaim_object(const scale_shape& s, int i) {
  auto name = nodeclaim_name(s, i);
  json::object annotations{{"karpenter.sh/nodeclaim-min-values-relaxed", "false"}};
  for (const auto& [k, v] : s.nodeclaim_annotations) annotations[k] = v;
  auto requirement = [](const char* key, json::array values) {
    return json::object{{"key", key}, {"operator", "In"}, {"values", std::move(values)}};
  };
  json::array conditions;
  for (const char* t : {"Launched", "Registered", "Initialized", "Ready"}) {
    auto c = condition(t, "True", s.created_at, t);
    c["message"] = "";
    conditions.push_back(std::move(c));
  }
  return {
      {"apiVersion", "karpenter.sh/v1"},
      {"kind", "NodeClaim"},
      {"metadata",
       json::object{
           {"name", name},
           {"labels", json::object{{"karpenter.sh/nodepool", s.nodepool},
                                   {"karpenter.proxmox.sinextra.dev/proxmoxnodeclass", s.nodeclass},
                                   {"node.kubernetes.io/instance-type", instance_type},
                                   {"topology.kubernetes.io/zone", zone_of(s, i)},
                                   {"topology.kubernetes.io/region", s.region},
                                   {"karpenter.sh/capacity-type", "on-demand"},
                                   {"kubernetes.io/arch", "amd64"},
                                   {"kubernetes.io/os", "linux"},
                                   {"karpenter.proxmox.sinextra.dev/instance-family", "s1"}}},
           {"annotations", std::move(annotations)},
           {"finalizers", json::array{"karpenter.sh/termination"}}}},
      {"spec",
       json::object{
           {"nodeClassRef", json::object{{"group", "karpenter.proxmox.sinextra.dev"},
                                         {"kind", "ProxmoxNodeClass"},
                                         {"name", s.nodeclass}}},
           {"requirements",
            json::array{requirement("karpenter.sh/nodepool", json::array{json::value(s.nodepool)}),
                        requirement("node.kubernetes.io/instance-type", json::array{instance_type}),
                        requirement("kubernetes.io/arch", json::array{"amd64"}),
                        requirement("kubernetes.io/os", json::array{"linux"}),
                        requirement("karpenter.sh/capacity-type", json::array{"on-demand"})}},
           {"resources",
            json::object{
                {"requests", json::object{{"cpu", "12"}, {"memory", "24Gi"}, {"pods", "20"}}}}},
           {"expireAfter", "720h"}}},
      {"status",
       json::object{{"providerID", "proxmox://" + s.region + "/" + std::to_string(vmid_of(i))},
                    {"nodeName", name},
                    {"capacity", resources(16000, 65536, node_max_pods)},
                    {"allocatable", resources(node_cpu_m, node_memory_mi, node_max_pods)},
                    {"conditions", std::move(conditions)},
                    {"lastPodEventTime", s.created_at}}}};
}

json::object pod_object(const scale_shape& s, int i) {
  const auto p = shape_of(i);
  const int node = placement(s)[static_cast<std::size_t>(i)];
  const auto name = pod_name(i);
  const auto app = "app-" + std::to_string(i / 10);
  const auto value = "value-" + std::to_string(p.value);
  json::object labels{{"app", app}, {"pod-template-hash", pod_template_hash}};
  json::object spec;
  switch (p.kind) {
    case 1:
    case 2:
      labels["my-label"] = value;
      spec["topologySpreadConstraints"] = json::array{json::object{
          {"maxSkew", 1},
          {"topologyKey", p.kind == 1 ? "topology.kubernetes.io/zone" : "kubernetes.io/hostname"},
          {"whenUnsatisfiable", "DoNotSchedule"},
          {"labelSelector", label_selector_of("my-label", value)}}};
      break;
    case 3:
      labels["my-affinity"] = value;
      spec["affinity"] = json::object{
          {"podAffinity",
           json::object{
               {"requiredDuringSchedulingIgnoredDuringExecution",
                json::array{json::object{{"labelSelector", label_selector_of("my-affinity", value)},
                                         {"topologyKey", "topology.kubernetes.io/zone"}}}}}}};
      break;
    case 4:
      labels["app"] = "nginx";
      spec["affinity"] = json::object{
          {"podAntiAffinity",
           json::object{
               {"requiredDuringSchedulingIgnoredDuringExecution",
                json::array{json::object{{"labelSelector", label_selector_of("app", "nginx")},
                                         {"topologyKey", "kubernetes.io/hostname"}}}}}}};
      break;
    default:
      break;
  }
  json::array tolerations;
  for (const char* key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    tolerations.push_back(json::object{
        {"key", key}, {"operator", "Exists"}, {"effect", "NoExecute"}, {"tolerationSeconds", 300}});
  }
  if (foreign_tainted(s, node)) {
    tolerations.push_back(json::object{
        {"key", tainted_key}, {"operator", "Equal"}, {"value", "infra"}, {"effect", "NoSchedule"}});
  }
  const auto memory = std::to_string(p.memory_mi) + "Mi";
  spec["nodeName"] = node_name(s, node);
  spec["containers"] = json::array{json::object{
      {"name", "app"},
      {"image", "registry.k8s.io/pause:3.9"},
      {"ports", json::array{json::object{{"containerPort", 8080}, {"protocol", "TCP"}}}},
      {"resources", json::object{{"requests", json::object{{"cpu", std::to_string(p.cpu_m) + "m"},
                                                           {"memory", memory}}},
                                 {"limits", json::object{{"memory", memory}}}}},
      {"volumeMounts",
       json::array{json::object{{"name", "kube-api-access"},
                                {"mountPath", "/var/run/secrets/kubernetes.io/serviceaccount"},
                                {"readOnly", true}}}}}};
  spec["tolerations"] = std::move(tolerations);
  spec["volumes"] = json::array{json::object{
      {"name", "kube-api-access"},
      {"projected",
       json::object{{"sources", json::array{json::object{{"serviceAccountToken",
                                                          json::object{{"expirationSeconds", 3607},
                                                                       {"path", "token"}}}}}},
                    {"defaultMode", 420}}}}};
  spec["restartPolicy"] = "Always";
  spec["terminationGracePeriodSeconds"] = 30;
  spec["serviceAccountName"] = "default";
  spec["schedulerName"] = "default-scheduler";
  spec["priority"] = 0;
  const auto& at = s.created_at;
  std::string pod_ip = "10." + std::to_string(64 + node / 256) + "." + std::to_string(node % 256) +
                       "." + std::to_string(i % 200 + 2);
  json::array conditions;
  for (const char* t :
       {"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"})
    conditions.push_back(condition(t, "True", at));
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       json::object{{"name", name},
                    {"namespace", namespace_name(namespace_of_pod(s, i))},
                    {"labels", std::move(labels)},
                    {"ownerReferences", json::array{json::object{
                                            {"apiVersion", "apps/v1"},
                                            {"kind", "ReplicaSet"},
                                            {"name", app + "-" + pod_template_hash},
                                            {"uid", uuid_of(4, static_cast<std::uint64_t>(i / 10))},
                                            {"controller", true},
                                            {"blockOwnerDeletion", true}}}}}},
      {"spec", std::move(spec)},
      {"status",
       json::object{
           {"phase", "Running"},
           {"conditions", std::move(conditions)},
           {"hostIP", "10.1." + std::to_string(node / 250) + "." + std::to_string(node % 250 + 2)},
           {"podIP", pod_ip},
           {"podIPs", json::array{json::object{{"ip", pod_ip}}}},
           {"startTime", at},
           {"qosClass", "Burstable"},
           {"containerStatuses",
            json::array{json::object{
                {"name", "app"},
                {"ready", true},
                {"started", true},
                {"restartCount", 0},
                {"image", "registry.k8s.io/pause:3.9"},
                {"imageID",
                 "registry.k8s.io/pause@sha256:"
                 "7031c1b283388d2c2e09b57badb803c05ebed362dc88d84b480cc47f72a21097"},
                {"containerID", "containerd://" + uuid_of(5, static_cast<std::uint64_t>(i))},
                {"state", json::object{{"running", json::object{{"startedAt", at}}}}}}}}}}};
}

}  // namespace

scale_shape scaled_shape(double scale) {
  scale_shape s;
  auto at_least_one = [scale](int v) {
    return std::max(1, static_cast<int>(static_cast<double>(v) * scale + 0.5));
  };
  s.nodes = std::max(2, at_least_one(s.nodes));
  s.owned_nodes = std::max(1, s.nodes * 4 / 5);
  s.pods = at_least_one(s.pods);
  s.namespaces = at_least_one(s.namespaces);
  s.hosts = at_least_one(s.hosts);
  return s;
}

std::string namespace_name(int index) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "team-%03d", index);
  return buf;
}

std::string pod_name(int index) {
  return "app-" + std::to_string(index / 10) + "-" + pod_template_hash + "-" +
         suffix(static_cast<std::uint64_t>(index), 777);
}

int namespace_of_pod(const scale_shape& shape, int pod_index) {
  const int per = std::max(1, (shape.pods + shape.namespaces - 1) / shape.namespaces);
  return std::min(shape.namespaces - 1, pod_index / per);
}

std::string topology_yaml(const scale_shape& s, const std::string& base_yaml) {
  std::string vms;
  for (int i = 0; i < s.owned_nodes; ++i) {
    auto id = std::to_string(vmid_of(i));
    auto name = nodeclaim_name(s, i);
    vms += "  - vmid: " + id + "\n    node: " + host_of(s, i) +
           "\n    config:\n      name: " + name +
           "\n      description: \"karpenter-proxmox: cluster=" + s.cluster_name +
           ", nodeclaim=" + name + ", nodepool=" + s.nodepool +
           "\"\n      tags: karpenter;lab\n      ostype: l26\n      sockets: \"1\"\n"
           "      cores: \"16\"\n      memory: \"65536\"\n      cpu: host\n"
           "      scsihw: virtio-scsi-single\n      scsi0: local-lvm:vm-" +
           id + "-disk-0,iothread=1,size=30G\n      net0: virtio,bridge=vmbr0,firewall=1\n" +
           "      smbios1: sku=" + instance_type +
           "\n      boot: order=scsi0\n      agent: \"1\"\n      ipconfig0: ip=dhcp\n";
  }
  // The VMs join the base's `vms:` list, which its `users:` section follows.
  auto users = base_yaml.find("\nusers:");
  if (users == std::string::npos) return base_yaml;
  return base_yaml.substr(0, users + 1) + vms + base_yaml.substr(users + 1);
}

std::vector<std::string> namespace_batches(const scale_shape& s, int batch) {
  return in_batches(s.namespaces, batch, [](int i) {
    return json::object{{"apiVersion", "v1"},
                        {"kind", "Namespace"},
                        {"metadata", json::object{{"name", namespace_name(i)},
                                                  {"labels", json::object{{"team", "scale"}}}}}};
  });
}

std::vector<std::string> node_batches(const scale_shape& s, int batch) {
  return in_batches(s.nodes, batch, [&s](int i) { return node_object(s, i); });
}

std::vector<std::string> nodeclaim_batches(const scale_shape& s, int batch) {
  return in_batches(s.owned_nodes, batch, [&s](int i) { return nodeclaim_object(s, i); });
}

std::string pod_batch(const scale_shape& s, int first, int count) {
  json::array items;
  for (int i = first; i < std::min(s.pods, first + count); ++i) items.push_back(pod_object(s, i));
  return batches_body(std::move(items));
}

}  // namespace kp::bench
