#include <gtest/gtest.h>

#include "core/scheduling/provision.hpp"
#include "test/core/scheduling/fixtures.hpp"

namespace {

using namespace kp::scheduling;
using namespace kp::scheduling::test;
namespace L = kp::model::labels;

TEST(VolumeLimits, ANodeAtItsCsiAttachLimitTakesNoMoreClaims) {
  auto s = base_snapshot();
  s.nodepools.clear();
  auto n = make_node("node-1", "z1", 8, 16);
  n.volume_limits = {{"csi.example.com", 1}};
  s.nodes.push_back(kp::model::share(n));
  auto running = make_pod("running", 100, 100);
  running.node_name = "node-1";
  running.volumes = {{"data", "claim-a", "csi.example.com", {}}};
  s.bound_pods.push_back(kp::model::share(running));
  auto pod = make_pod("new", 100, 100);
  pod.volumes = {{"data", "claim-b", "csi.example.com", {}}};
  s.pods.push_back(pod);
  auto without_claim = make_pod("plain", 100, 100);
  s.pods.push_back(without_claim);
  auto p = provision(s);
  ASSERT_EQ(p.bindings.size(), 1u);
  EXPECT_EQ(p.bindings[0].pod, 1u);
  ASSERT_NE(error_for(p, 0), nullptr);
}

TEST(PreferNoSchedule, TaintsArePreferredAwayFromButToleratedWhenNothingElseFits) {
  auto s = base_snapshot();
  s.nodepools[0].template_.taints = {{"soft", "", "PreferNoSchedule"}};
  s.pods.push_back(make_pod("a", 100, 100));
  auto p = provision(s);
  EXPECT_TRUE(p.errors.empty());
  ASSERT_EQ(p.nodeclaims.size(), 1u);
}

TEST(PreferNoSchedule, AnUntaintedNodePoolIsPreferredOverASoftTaintedOne) {
  auto s = base_snapshot();
  s.nodepools[0].template_.taints = {{"soft", "", "PreferNoSchedule"}};
  s.nodepools[0].weight = 10;
  s.nodepools.push_back(make_pool("plain"));
  s.pods.push_back(make_pod("a", 100, 100));
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(p.nodeclaims[0].nodepool, "plain");
}

TEST(NodeAffinity, ANonIntegerGtValueIsReportedNotCrashed) {
  auto s = base_snapshot();
  auto pod = make_pod("a", 100, 100);
  pod.affinity.required = {{{{"example.com/cores", op::gt, {"many"}, std::nullopt}}, {}}};
  s.pods.push_back(pod);
  auto p = provision(s);
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].reason.find("integer"), std::string::npos) << p.errors[0].reason;
}

TEST(NodeAffinity, GtOnANodePoolLabelSelectsMatchingPools) {
  auto s = base_snapshot();
  s.nodepools[0].template_.labels = {{"example.com/generation", "3"}};
  auto newer = make_pool("newer");
  newer.template_.labels = {{"example.com/generation", "5"}};
  s.nodepools.push_back(newer);
  auto pod = make_pod("a", 100, 100);
  pod.affinity.required = {{{{"example.com/generation", op::gt, {"4"}, std::nullopt}}, {}}};
  s.pods.push_back(pod);
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(p.nodeclaims[0].nodepool, "newer");
}

TEST(NodeAffinity, MatchFieldsIsRefusedWithAReason) {
  auto s = base_snapshot();
  auto pod = make_pod("a", 100, 100);
  pod.affinity.required = {{{}, {{"metadata.name", op::in, {"x"}, std::nullopt}}}};
  s.pods.push_back(pod);
  auto p = provision(s);
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].reason.find("matchFields"), std::string::npos);
}

TEST(NodeAffinity, RequiringNoNodePoolOptsOutOfKarpenter) {
  auto s = base_snapshot();
  auto pod = make_pod("a", 100, 100);
  pod.affinity.required = {
      {{{std::string(L::nodepool), op::does_not_exist, {}, std::nullopt}}, {}}};
  s.pods.push_back(pod);
  auto p = provision(s);
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_TRUE(p.nodeclaims.empty());
}

TEST(NodeAffinity, DeprecatedZoneLabelsAreNormalised) {
  auto s = base_snapshot();
  auto pod = make_pod("a", 100, 100);
  pod.node_selector = {{"failure-domain.beta.kubernetes.io/zone", "z2"}};
  s.pods.push_back(pod);
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(req_values(p.nodeclaims[0], L::zone), std::vector<std::string>{"z2"});
}

TEST(ExtendedResources, APodAskingForAGpuOnlyFitsTypesThatHaveOne) {
  auto s = base_snapshot();
  auto gpu_types = instance_types_with_gpu();
  s.instance_types = gpu_types;
  auto pod = make_pod("a", 100, 100);
  pod.containers[0].requests.set("nvidia.com/gpu", kp::model::quantity::from_units(1));
  s.pods.push_back(pod);
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(instance_type_names(p.nodeclaims[0], s), std::vector<std::string>{"g1.4VCPU-16GB"});
}

TEST(Determinism, TheSameSnapshotGivesTheSamePlan) {
  auto s = base_snapshot();
  for (int i = 0; i < 50; ++i) {
    auto p = make_pod("p" + std::to_string(i), 100 + 37 * (i % 7), 64 + 100 * (i % 5));
    p.labels = {{"app", i % 2 ? "a" : "b"}};
    p.topology_spread = {app_spread(L::zone, "a")};
    s.pods.push_back(p);
  }
  auto a = provision(s);
  auto b = provision(s);
  ASSERT_EQ(a.nodeclaims.size(), b.nodeclaims.size());
  for (std::size_t i = 0; i < a.nodeclaims.size(); ++i) {
    EXPECT_EQ(a.nodeclaims[i].pods, b.nodeclaims[i].pods);
    EXPECT_EQ(a.nodeclaims[i].requirements, b.nodeclaims[i].requirements);
  }
}

TEST(KubeletMaxPods, ANodeClassMaxPodsCapsThePodsOfEachNodeOfItsPool) {
  auto s = base_snapshot();
  for (int i = 0; i < 40; ++i) s.pods.push_back(make_pod("p" + std::to_string(i), 10, 10));
  auto uncapped = provision(s);
  ASSERT_TRUE(uncapped.errors.empty());
  ASSERT_EQ(uncapped.nodeclaims.size(), 1u) << "40 tiny pods fit one node without a cap";

  s.nodepools[0].kubelet_max_pods = 10;
  auto capped = provision(s);
  ASSERT_TRUE(capped.errors.empty());
  EXPECT_EQ(capped.nodeclaims.size(), 4u) << "at most 10 pods per node";
  for (const auto& nc : capped.nodeclaims) EXPECT_LE(nc.pods.size(), 10u);
}

}  // namespace
