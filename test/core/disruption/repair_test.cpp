// Node repair decisions: tolerations, the 20% unhealthy guard per NodePool.
#include <gtest/gtest.h>

#include "core/disruption/repair.hpp"

namespace kp::disruption {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t now_ms = 1'795'305'600'000;
const std::chrono::sys_seconds now{std::chrono::seconds(now_ms / 1000)};

node_health healthy(const std::string& name) {
  return {name, "nc-" + name, "default", false, {{"Ready", "True", now_ms - 3'600'000}}};
}
node_health not_ready(const std::string& name, std::chrono::minutes since,
                      std::string status = "False") {
  return {name,
          "nc-" + name,
          "default",
          false,
          {{"Ready", std::move(status), now_ms - since.count() * 60'000}}};
}

TEST(NodeRepair, ANodeNotReadyLongerThanTheTolerationIsRepaired) {
  std::vector<node_health> nodes{not_ready("a", 31min)};
  for (int i = 0; i < 9; ++i) nodes.push_back(healthy("h" + std::to_string(i)));
  auto plan = plan_repairs(nodes, default_repair_policies(), now);
  ASSERT_EQ(plan.repairs.size(), 1u);
  EXPECT_EQ(plan.repairs[0].nodeclaim, "nc-a");
  EXPECT_NE(plan.repairs[0].reason.find("Ready=False for 31m0s"), std::string::npos);
  EXPECT_TRUE(plan.blocked.empty());
}

TEST(NodeRepair, ANodeNotReadyWithinTheTolerationIsLeftAlone) {
  auto plan = plan_repairs({not_ready("a", 29min, "Unknown"), healthy("b")},
                           default_repair_policies(), now);
  EXPECT_TRUE(plan.repairs.empty());
  EXPECT_TRUE(plan.blocked.empty());
}

TEST(NodeRepair, TheTolerationIsAParameter) {
  auto plan = plan_repairs({not_ready("a", 6min, "Unknown")}, default_repair_policies(5min), now);
  EXPECT_EQ(plan.repairs.size(), 1u);
}

TEST(NodeRepair, MoreThanTwentyPercentUnhealthyBlocksThePool) {
  std::vector<node_health> nodes{not_ready("a", 40min), not_ready("b", 40min),
                                 not_ready("c", 5min)};
  for (int i = 0; i < 7; ++i) nodes.push_back(healthy("h" + std::to_string(i)));
  auto plan = plan_repairs(nodes, default_repair_policies(), now);
  EXPECT_TRUE(plan.repairs.empty());
  ASSERT_EQ(plan.blocked.size(), 2u);
  EXPECT_NE(plan.blocked[0].reason.find("3 of 10"), std::string::npos);
}

TEST(NodeRepair, TwentyPercentUnhealthyStillRepairs) {
  std::vector<node_health> nodes{not_ready("a", 40min), not_ready("b", 40min)};
  for (int i = 0; i < 8; ++i) nodes.push_back(healthy("h" + std::to_string(i)));
  EXPECT_EQ(plan_repairs(nodes, default_repair_policies(), now).repairs.size(), 2u);
}

TEST(NodeRepair, ADeletingNodeIsNotRepairedAgain) {
  auto n = not_ready("a", 40min);
  n.deleting = true;
  EXPECT_TRUE(plan_repairs({n}, default_repair_policies(), now).repairs.empty());
}

}  // namespace
}  // namespace kp::disruption
