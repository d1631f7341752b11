// The pure pieces behind the provisioner: which NodeClasses count as ready, how the cluster
// snapshot becomes the scheduler's input (pools left out and why, DaemonSet pods, in-flight
// claims, nominations that hold pods on a claim until it is initialized), and the NodeClaim
// object built from a plan.
#include <gtest/gtest.h>

#include <algorithm>

#include "actors/provisioning/scheduling_input.hpp"
#include "core/scheduling/provision.hpp"

namespace kp::actors::provisioning {
namespace {

template <class T>
protocol::shared_objects<T> objects(const std::vector<T>& items) {
  auto m = std::make_shared<protocol::object_map<T>>();
  for (const auto& i : items) (*m)[protocol::object_key_of(i)] = std::make_shared<T>(i);
  return m;
}

kube::proxmox_node_class node_class(const std::string& name,
                                    std::vector<kube::condition> conditions = {}) {
  kube::proxmox_node_class c;
  c.metadata.name = name;
  c.spec.region = "region1";
  c.status.conditions = std::move(conditions);
  return c;
}

kube::condition cond(const std::string& type, const std::string& status,
                     const std::string& message = "") {
  kube::condition c;
  c.type = type;
  c.status = status;
  c.reason = "Because";
  c.message = message;
  return c;
}

kube::node_pool pool(const std::string& name, const std::string& node_class_name) {
  kube::node_pool p;
  p.metadata.name = name;
  p.metadata.uid = "uid-" + name;
  p.spec.template_.spec.node_class_ref = {node_class_group, node_class_kind, node_class_name};
  p.spec.template_.spec.requirements.push_back(
      {"karpenter.sh/capacity-type", "In", {"on-demand"}, std::nullopt});
  return p;
}

kube::pod pending(const std::string& name) {
  kube::pod p;
  p.metadata.name = name;
  p.metadata.namespace_ = "default";
  p.metadata.uid = "uid-" + name;
  kube::container c;
  c.name = "c";
  c.resources.requests = {{"cpu", "1"}, {"memory", "1Gi"}};
  p.spec.containers.push_back(c);
  p.status.phase = "Pending";
  p.status.conditions.push_back({"PodScheduled", "False", "Unschedulable", "", "", "", 0});
  return p;
}

std::vector<instance_types::instance_type> types() {
  auto t = instance_types::builtin_instance_types();
  instance_types::build_offerings(t, {{"region1", "pve1", 512, std::int64_t{1} << 40, true}});
  return t;
}

TEST(NodeClassReadiness, NoConditionsIsReadyAndReadyFalseExplainsItself) {
  protocol::cluster_snapshot s;
  s.node_classes = objects<kube::proxmox_node_class>(
      {node_class("fresh"), node_class("ok", {cond("Ready", "True")}),
       node_class("broken", {cond("Ready", "False", "no template")}),
       node_class("other", {cond("TemplatesReady", "True")})});
  EXPECT_EQ(node_class_blocker(s, "fresh"), "");
  EXPECT_EQ(node_class_blocker(s, "ok"), "");
  EXPECT_EQ(node_class_blocker(s, "broken"),
            "ProxmoxNodeClass \"broken\" is not ready (Ready=False, Because: no template)");
  EXPECT_EQ(node_class_blocker(s, "other"),
            "ProxmoxNodeClass \"other\" has no Ready condition yet");
  EXPECT_EQ(node_class_blocker(s, "missing"), "ProxmoxNodeClass \"missing\" does not exist");
}

TEST(SchedulingInput, LeavesOutPoolsThatCannotCreateNodesAndSaysWhy) {
  protocol::cluster_snapshot s;
  s.synced = true;
  auto deleting = pool("deleting", "ok");
  deleting.metadata.deletion_timestamp = "2026-01-01T00:00:00Z";
  auto foreign = pool("foreign", "ok");
  foreign.spec.template_.spec.node_class_ref = {"karpenter.k8s.aws", "EC2NodeClass", "x"};
  s.node_pools =
      objects<kube::node_pool>({pool("good", "ok"), pool("blocked", "broken"), deleting, foreign});
  s.node_classes = objects<kube::proxmox_node_class>(
      {node_class("ok"), node_class("broken", {cond("Ready", "False", "no template")})});
  auto in = build_scheduling_input(s, {}, {}, types());
  ASSERT_EQ(in.snap.nodepools.size(), 1u);
  EXPECT_EQ(in.snap.nodepools[0].name, "good");
  EXPECT_EQ(in.pools.count("good"), 1u);
  ASSERT_EQ(in.skipped_pools.size(), 3u);
  std::string all;
  for (const auto& why : in.skipped_pools) all += why + "\n";
  EXPECT_NE(all.find("NodePool \"blocked\": ProxmoxNodeClass \"broken\" is not ready"),
            std::string::npos);
  EXPECT_NE(all.find("NodePool \"deleting\" is being deleted"), std::string::npos);
  EXPECT_NE(all.find("NodePool \"foreign\" references karpenter.k8s.aws/EC2NodeClass"),
            std::string::npos);
}

TEST(SchedulingInput, ANodeClassKubeletMaxPodsCapsItsPools) {
  protocol::cluster_snapshot s;
  s.synced = true;
  auto capped = node_class("capped");
  capped.spec.kubelet = kube::kubelet_configuration{};
  capped.spec.kubelet->max_pods = 30;
  s.node_pools = objects<kube::node_pool>({pool("small", "capped"), pool("plain", "ok")});
  s.node_classes = objects<kube::proxmox_node_class>({capped, node_class("ok")});
  auto in = build_scheduling_input(s, {}, {}, types());
  ASSERT_EQ(in.snap.nodepools.size(), 2u);
  for (const auto& np : in.snap.nodepools) {
    if (np.name == "small") {
      EXPECT_EQ(np.kubelet_max_pods, std::optional<std::int64_t>(30));
    } else {
      EXPECT_FALSE(np.kubelet_max_pods.has_value());
    }
  }
}

TEST(SchedulingInput, SplitsPendingFromBoundPodsAndBuildsDaemonSetPods) {
  protocol::cluster_snapshot s;
  auto bound = pending("bound");
  bound.spec.node_name = "n1";
  bound.status.phase = "Running";
  auto finished = pending("finished");
  finished.spec.node_name = "n1";
  finished.status.phase = "Succeeded";
  auto bad = pending("bad");
  bad.spec.containers[0].resources.requests["cpu"] = "lots";
  s.pods = protocol::pod_models_of(*objects<kube::pod>({pending("a"), bound, finished, bad}));
  kube::daemon_set ds;
  ds.metadata.name = "agent";
  ds.metadata.namespace_ = "kube-system";
  kube::container c;
  c.name = "agent";
  c.resources.requests = {{"cpu", "100m"}};
  ds.template_.spec.containers.push_back(c);
  s.daemon_sets = objects<kube::daemon_set>({ds});
  auto in = build_scheduling_input(s, {}, {}, types());
  ASSERT_EQ(in.snap.pods.size(), 1u);
  EXPECT_EQ(in.snap.pods[0].name, "a");
  ASSERT_EQ(in.pending.size(), 1u);
  EXPECT_EQ(in.pending[0]->name, "a");
  ASSERT_EQ(in.snap.bound_pods.size(), 1u);
  EXPECT_EQ(in.snap.bound_pods[0]->name, "bound");
  ASSERT_EQ(in.invalid_pods.size(), 1u);
  EXPECT_EQ(in.invalid_pods[0].first->name, "bad");
  ASSERT_EQ(in.snap.daemonsets.size(), 1u);
  ASSERT_EQ(in.snap.daemonsets[0].owners.size(), 1u);
  EXPECT_EQ(in.snap.daemonsets[0].owners[0].kind, "DaemonSet");
}

model::nodeclaim in_flight_claim(const std::string& name) {
  model::nodeclaim c;
  c.name = name;
  c.nodepool = "good";
  c.requirements.push_back({"node.kubernetes.io/instance-type",
                            model::selector_operator::in,
                            {"c1.2VCPU-4GB", "m1.16VCPU-128GB"},
                            std::nullopt});
  return c;
}

TEST(SchedulingInput, NominatedPodsStayOnTheirClaimUntilItIsInitialized) {
  protocol::cluster_snapshot s;
  s.pods = protocol::pod_models_of(*objects<kube::pod>({pending("a"), pending("b")}));
  const std::map<std::string, std::string> nominations = {{"uid-a", "good-abcde"},
                                                          {"uid-b", "good-gone1"}};
  // good-abcde is only known as created here; good-gone1 exists nowhere.
  auto in = build_scheduling_input(s, {in_flight_claim("good-abcde")}, nominations, types());
  ASSERT_EQ(in.snap.nodeclaims.size(), 1u);
  ASSERT_EQ(in.snap.bound_pods.size(), 1u);
  EXPECT_EQ(in.snap.bound_pods[0]->name, "a");
  EXPECT_EQ(in.snap.bound_pods[0]->node_name, "good-abcde");
  ASSERT_EQ(in.snap.pods.size(), 1u);
  EXPECT_EQ(in.snap.pods[0].name, "b");
  // Pessimistic: the largest type it may become.
  EXPECT_EQ(in.snap.nodeclaims[0]->capacity.milli("cpu"), 16000);

  // Once the informer shows it initialized, its pods are scheduled like any other.
  kube::node_claim seen;
  seen.metadata.name = "good-abcde";
  seen.status.conditions.push_back(cond("Initialized", "True"));
  s.node_claims = objects<kube::node_claim>({seen});
  in = build_scheduling_input(s, {in_flight_claim("good-abcde")}, nominations, types());
  EXPECT_EQ(in.snap.nodeclaims.size(), 1u);  // not twice
  EXPECT_EQ(in.snap.pods.size(), 2u);
}

TEST(SchedulingInput, AnInFlightRightSizedClaimCountsWithTheSizeItNames) {
  auto c = in_flight_claim("good-f1abc");
  c.requirements.back().values = {"f1.6VCPU-10240MB", "c1.2VCPU-4GB"};
  auto cap = pessimistic_capacity(c, types(), 0.075);
  EXPECT_EQ(cap.milli("cpu"), 6000);
  // 10240Mi less 7.5% (VM_MEMORY_OVERHEAD_PERCENT), as the f1 type is built.
  EXPECT_EQ(cap.milli("memory"), (10240LL - 768) * 1024 * 1024 * 1000);
}

TEST(SchedulingInput, RightSizedRoomComesFromTheHostsOrElseTheSelectedZones) {
  protocol::cluster_snapshot s;
  auto nc = node_class("default");
  nc.status.selected_zones = {"region1/pve1/9000"};
  s.node_classes = objects<kube::proxmox_node_class>({nc});
  auto without = build_scheduling_input(s, {}, {}, types(), {0.075, {}});
  ASSERT_EQ(without.snap.right_sized.zones.size(), 1u);
  EXPECT_EQ(without.snap.right_sized.zones[0].zone, "pve1");
  EXPECT_DOUBLE_EQ(without.snap.right_sized.memory_overhead_percent, 0.075);
  auto with = build_scheduling_input(
      s, {}, {}, types(), {0.075, {{"region1", "pve2", 8, std::int64_t{16} << 30, true}}});
  ASSERT_EQ(with.snap.right_sized.zones.size(), 1u);
  EXPECT_EQ(with.snap.right_sized.zones[0].zone, "pve2");
  EXPECT_EQ(with.snap.right_sized.zones[0].free_cpus, 8);
}

// pve-sim's lab hosts: the `gpu` mapping has one device on pve2 and two on pve3, one of pve3's
// held by a VM.
std::vector<instance_types::zone_capacity> gpu_hosts() {
  const std::int64_t tib = std::int64_t{1} << 40;
  return {{"region1", "pve1", 64, tib, true, {}},
          {"region1", "pve2", 64, tib, true, {{"gpu", 1}}},
          {"region1", "pve3", 64, tib, true, {{"gpu", 1}}}};
}

std::vector<instance_types::instance_type> gpu_types() {
  auto t = instance_types::builtin_instance_types();
  instance_types::build_offerings(t, gpu_hosts());
  return t;
}

kube::pod gpu_pod(const std::string& name) {
  auto p = pending(name);
  p.spec.containers[0].resources.requests["nvidia.com/gpu"] = "1";
  return p;
}

protocol::cluster_snapshot gpu_cluster(int count = 1) {
  protocol::cluster_snapshot s;
  s.synced = true;
  auto gpu = node_class("gpu");
  gpu.spec.pci_devices.push_back({"gpu", "nvidia.com/gpu", count, {}, ""});
  s.node_pools = objects<kube::node_pool>({pool("gpu", "gpu"), pool("plain", "ok")});
  s.node_classes = objects<kube::proxmox_node_class>({gpu, node_class("ok")});
  s.pods = protocol::pod_models_of(*objects<kube::pod>({gpu_pod("cuda"), pending("web")}));
  return s;
}

const model::node_selector_requirement* zone_requirement(const model::nodepool& np) {
  for (const auto& r : np.template_.requirements)
    if (r.key == "topology.kubernetes.io/zone") return &r;
  return nullptr;
}

TEST(PciOfferings, APoolWithDevicesIsOfferedOnlyOnHostsWithThemFreeAndItsNodesCarryThem) {
  auto in = build_scheduling_input(gpu_cluster(), {}, {}, gpu_types(), {0, gpu_hosts()});
  ASSERT_EQ(in.snap.nodepools.size(), 2u) << (in.skipped_pools.empty() ? "" : in.skipped_pools[0]);
  for (const auto& np : in.snap.nodepools) {
    if (np.name == "plain") {
      EXPECT_TRUE(np.device_capacity.empty());
      EXPECT_EQ(zone_requirement(np), nullptr);
      continue;
    }
    EXPECT_EQ(np.device_capacity.milli("nvidia.com/gpu"), 1000);
    const auto* zones = zone_requirement(np);
    ASSERT_NE(zones, nullptr);
    EXPECT_EQ(zones->values, (std::vector<std::string>{"pve2", "pve3"}));
  }
  // The GPU pod gets a NodeClaim of the GPU pool in those zones; the other pod goes anywhere.
  auto plan = scheduling::provision(in.snap);
  EXPECT_TRUE(plan.errors.empty()) << plan.errors.front().reason;
  bool gpu_claim = false;
  for (const auto& nc : plan.nodeclaims) {
    bool has_gpu_pod = false;
    for (auto i : nc.pods) has_gpu_pod = has_gpu_pod || in.snap.pods[i].name == "cuda";
    if (!has_gpu_pod) continue;
    gpu_claim = true;
    EXPECT_EQ(nc.nodepool, "gpu");
    EXPECT_EQ(nc.requests.milli("nvidia.com/gpu"), 1000);
    bool limited = false;
    for (const auto& r : scheduling::nodeclaim_requirements(nc, in.snap))
      if (r.key == "topology.kubernetes.io/zone") {
        limited = true;
        for (const auto& z : r.values) EXPECT_NE(z, "pve1");
      }
    EXPECT_TRUE(limited);
  }
  EXPECT_TRUE(gpu_claim);
}

TEST(PciOfferings, WithoutFreeDevicesThePoolIsLeftOutNamingEachHostAndTheGpuPodWaits) {
  auto in = build_scheduling_input(gpu_cluster(2), {}, {}, gpu_types(), {0, gpu_hosts()});
  ASSERT_EQ(in.snap.nodepools.size(), 1u);
  EXPECT_EQ(in.snap.nodepools[0].name, "plain");
  ASSERT_EQ(in.skipped_pools.size(), 1u);
  EXPECT_EQ(in.skipped_pools[0],
            "NodePool \"gpu\": ProxmoxNodeClass \"gpu\": no host has its PCI devices free (pve1: 0 "
            "of 2 wanted devices of PCI mapping gpu free; pve2: 1 of 2 wanted devices of PCI "
            "mapping gpu free; pve3: 1 of 2 wanted devices of PCI mapping gpu free)");
  auto plan = scheduling::provision(in.snap);
  ASSERT_EQ(plan.errors.size(), 1u) << "only the GPU pod is unschedulable";
  EXPECT_EQ(in.snap.pods[plan.errors[0].pod].name, "cuda");
}

TEST(PciOfferings, BeforeTheHostsReportThePoolCarriesItsDevicesEverywhere) {
  auto in = build_scheduling_input(gpu_cluster(), {}, {}, gpu_types());
  ASSERT_EQ(in.snap.nodepools.size(), 2u);
  for (const auto& np : in.snap.nodepools)
    if (np.name == "gpu") {
      EXPECT_EQ(np.device_capacity.milli("nvidia.com/gpu"), 1000);
      EXPECT_EQ(zone_requirement(np), nullptr) << "placement decides at launch";
    }
}

}  // namespace
}  // namespace kp::actors::provisioning
