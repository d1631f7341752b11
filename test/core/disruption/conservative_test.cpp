#include "core/disruption/conservative.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "test/core/disruption/fixture.hpp"

namespace kp::disruption {
namespace {

using namespace std::chrono_literals;
using fixture::builder;

std::string type4() {
  return instance_types::generic_name(4, 2);
}

bool has_reason(const plan& p, const std::string& node, const std::string& text) {
  return std::any_of(p.not_disrupted.begin(), p.not_disrupted.end(), [&](const blocked_node& b) {
    return b.node == node && b.reason.find(text) != std::string::npos;
  });
}

conservative_settings settings() {
  return {5min, 10min, 0.2};
}

TEST(ConservativeMode, RemovesOneEmptyNodePerPass) {
  builder b;
  b.add_node("busy", type4());
  b.add_pod("busy", "app", 500, 256);
  b.add_node("empty-a", type4());
  b.add_node("empty-b", type4());
  auto p = plan_disruption(b.c, conservative_mode(settings()));
  ASSERT_EQ(p.commands.size(), 1u);
  EXPECT_EQ(p.commands[0].nodes.size(), 1u);
}

TEST(ConservativeMode, AnyNewNodeHoldsScaleDownDuringStabilization) {
  builder b;
  b.add_node("empty-old", type4());
  b.add_node("just-created", type4(), 2min);
  b.add_pod("just-created", "app", 500, 256);
  auto p = plan_disruption(b.c, conservative_mode(settings()));
  EXPECT_TRUE(p.commands.empty());
  EXPECT_TRUE(has_reason(p, "empty-old", "scale-down stabilization: node just-created"));
  b.c.now += std::chrono::minutes(4);
  EXPECT_EQ(plan_disruption(b.c, conservative_mode(settings())).method, "emptiness");
}

TEST(ConservativeMode, ANodeYoungerThanTheMinimumAgeStays) {
  builder b;
  b.add_node("busy", type4()).annotations = {{"karpenter.sh/do-not-disrupt", "true"}};
  b.add_node("young-empty", type4(), 7min);  // past stabilization, under the minimum age
  auto p = plan_disruption(b.c, conservative_mode(settings()));
  EXPECT_TRUE(p.commands.empty());
  EXPECT_TRUE(has_reason(p, "young-empty", "younger than the minimum node age 10m0s"));
}

TEST(ConservativeMode, LoadHeadroomKeepsANodeThatWouldLeaveTooLittleRoom) {
  builder b;
  // 3.4 vCPU requested x 1.2 = 4.08: not below the one 4-vCPU node's allocatable left.
  b.add_node("busy", type4());
  b.add_pod("busy", "app", 3400, 256);
  b.add_node("empty", type4());
  auto p = plan_disruption(b.c, conservative_mode(settings()));
  EXPECT_TRUE(p.commands.empty());
  EXPECT_TRUE(has_reason(p, "empty", "load headroom"));
  // Karpenter's own planner (no headroom) removes it.
  EXPECT_EQ(plan_disruption(b.c).method, "emptiness");
}

}  // namespace
}  // namespace kp::disruption
