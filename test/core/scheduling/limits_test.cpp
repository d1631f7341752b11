#include <gtest/gtest.h>

#include "core/scheduling/provision.hpp"
#include "test/core/scheduling/fixtures.hpp"

namespace {

using namespace kp::scheduling;
using namespace kp::scheduling::test;
namespace L = kp::model::labels;

TEST(Limits, NodePoolLimitsCausePartialScheduling) {
  auto s = base_snapshot();
  s.nodepools[0].limits.set("cpu", kp::model::quantity::from_units(4));
  for (int i = 0; i < 10; ++i) s.pods.push_back(make_pod("p" + std::to_string(i), 1000, 256));
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(p.nodeclaims[0].pods.size(), 3u);  // a 4-vCPU type holds three 1-CPU pods
  EXPECT_EQ(p.errors.size(), 7u);
  EXPECT_NE(p.errors[0].reason.find("limits"), std::string::npos) << p.errors[0].reason;
}

TEST(Limits, ExistingNodesCountAgainstTheLimit) {
  auto s = base_snapshot();
  s.nodepools[0].limits.set("cpu", kp::model::quantity::from_units(4));
  auto n = make_node("old", "z1", 4, 8);
  n.labels[std::string(L::nodepool)] = "default";
  n.taints = {{"full", "", "NoSchedule"}};
  s.nodes.push_back(kp::model::share(n));
  s.pods.push_back(make_pod("a", 100, 100));
  auto p = provision(s);
  EXPECT_TRUE(p.nodeclaims.empty());
  ASSERT_EQ(p.errors.size(), 1u);
}

TEST(Limits, ANodeCountLimitStopsNewNodeClaims) {
  auto s = base_snapshot();
  s.nodepools[0].limits.set("nodes", kp::model::quantity::from_units(1));
  for (int i = 0; i < 2; ++i) {
    auto pod = make_pod("p" + std::to_string(i), 100, 100);
    pod.containers[0].host_ports = {{80, "TCP", ""}};
    s.pods.push_back(pod);
  }
  auto p = provision(s);
  EXPECT_EQ(p.nodeclaims.size(), 1u);
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].reason.find("limits.nodes"), std::string::npos);
}

TEST(Limits, ALowerWeightPoolTakesOverWhenTheFirstIsFull) {
  auto s = base_snapshot();
  s.nodepools[0].weight = 10;
  s.nodepools[0].limits.set("cpu", kp::model::quantity::from_units(2));
  s.nodepools.push_back(make_pool("overflow"));
  for (int i = 0; i < 4; ++i) s.pods.push_back(make_pod("p" + std::to_string(i), 1000, 256));
  auto p = provision(s);
  EXPECT_TRUE(p.errors.empty());
  bool overflow = false;
  for (const auto& nc : p.nodeclaims) overflow |= nc.nodepool == "overflow";
  EXPECT_TRUE(overflow);
}

TEST(MinValues, StrictMinValuesRefusesWhenTooFewTypesRemain) {
  auto s = base_snapshot();
  s.nodepools[0].template_.requirements = {{std::string(L::instance_type), op::exists, {}, 5}};
  s.pods.push_back(make_pod("big", 12000, 1024));  // only the five 16-vCPU... four types fit
  auto p = provision(s);
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].reason.find("minValues"), std::string::npos) << p.errors[0].reason;
}

TEST(MinValues, BestEffortRelaxesAndMarksTheNodeClaim) {
  auto s = base_snapshot();
  s.nodepools[0].template_.requirements = {{std::string(L::instance_type), op::exists, {}, 5}};
  s.pods.push_back(make_pod("big", 12000, 1024));
  options o;
  o.min_values = min_values_policy::best_effort;
  auto p = provision(s, o);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_TRUE(p.nodeclaims[0].min_values_relaxed);
  EXPECT_EQ(p.nodeclaims[0].instance_types.size(), 4u);
}

TEST(MinValues, SatisfiedMinValuesKeepsEnoughTypes) {
  auto s = base_snapshot();
  s.nodepools[0].template_.requirements = {{std::string(L::instance_type), op::exists, {}, 3}};
  s.pods.push_back(make_pod("small", 100, 100));
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_FALSE(p.nodeclaims[0].min_values_relaxed);
  EXPECT_GE(p.nodeclaims[0].instance_types.size(), 3u);
  bool found = false;
  for (const auto& r : nodeclaim_requirements(p.nodeclaims[0], s))
    if (r.key == L::instance_type) found = r.min_values == 3;
  EXPECT_TRUE(found);
}

}  // namespace
