// Consolidation with right-sized VMs (family f1).
#include <gtest/gtest.h>

#include "core/disruption/planner.hpp"
#include "core/instance_types/right_sized.hpp"
#include "test/core/disruption/fixture.hpp"

namespace kp::disruption {
namespace {

using fixture::builder;
namespace it = instance_types;
constexpr std::int64_t GiB = 1024LL * 1024 * 1024;

// The fixture's cluster with f1 offered on its host (64 CPUs / 256Gi free) and the pool opted
// into f1 and c1.
builder with_f1(std::vector<std::string> families = {"f1", "c1"}) {
  builder b;
  b.c.state.right_sized.zones = {{"region1", "pve-1", 64, 256 * GiB, true}};
  if (!families.empty())
    b.pool().template_.requirements.push_back({std::string(model::labels::instance_family),
                                               model::selector_operator::in, families,
                                               std::nullopt});
  return b;
}

// A half-empty 8-vCPU node: 4 CPUs and 5Gi of pods on c1.8VCPU-16GB. No fixed type but the
// node's own holds 4 CPUs (c1.4VCPU-8GB has 3.89 allocatable); an f1 VM of 5 vCPUs and 5888Mi
// does, for about 60% of the price.
builder half_empty_eight(builder b) {
  b.add_node("big", it::generic_name(8, 2));
  b.add_pod("big", "a", 2000, 2048);
  b.add_pod("big", "b", 1000, 1536);
  b.add_pod("big", "c", 1000, 1536);
  return b;
}

TEST(RightSizedConsolidation, AHalfEmptyEightVcpuNodeIsReplacedByARightSizedOne) {
  auto b = half_empty_eight(with_f1());
  auto p = plan_disruption(b.c);
  ASSERT_EQ(p.commands.size(), 1u);
  const auto& cmd = p.commands[0];
  EXPECT_EQ(cmd.nodes, std::vector<std::string>{"big"});
  ASSERT_EQ(cmd.replacements.size(), 1u);
  const auto& r = cmd.replacements[0];
  ASSERT_TRUE(r.right_sized);
  auto size = it::parse_right_sized_name(r.right_sized->name);
  ASSERT_TRUE(size);
  EXPECT_EQ(*size, (it::vm_size{5, 5888}));
  EXPECT_EQ(scheduling::instance_type_names(r, b.c.state).front(), r.right_sized->name);
  const double old_price = b.type(it::generic_name(8, 2)).offerings[0].price;
  EXPECT_DOUBLE_EQ(r.price, it::right_sized_price(*size));
  EXPECT_NEAR(cmd.savings, old_price - r.price, 1e-9);
  EXPECT_NE(cmd.decision.find(r.right_sized->name), std::string::npos) << cmd.decision;
  // Fixed types that hold the pods but cost as much as the node are not offered.
  for (const auto& name : scheduling::instance_type_names(r, b.c.state))
    EXPECT_NE(name, it::generic_name(8, 2));
}

TEST(RightSizedConsolidation, WithoutTheOptInTheSameNodeStays) {
  auto b = half_empty_eight(with_f1({}));
  auto p = plan_disruption(b.c);
  EXPECT_TRUE(p.commands.empty());
}

TEST(RightSizedConsolidation, WithoutHostRoomNoRightSizedReplacementIsPlanned) {
  auto b = half_empty_eight(with_f1());
  b.c.state.right_sized.zones.clear();  // the regions have not reported yet
  auto p = plan_disruption(b.c);
  EXPECT_TRUE(p.commands.empty());
}

// An f1 node that is already the smallest size for its pods: the simulation would make the
// same type, which is not cheaper, so nothing moves (no churn).
TEST(RightSizedConsolidation, ARightSizedNodeIsNotReplacedByItsOwnSize) {
  auto b = with_f1({"f1"});
  auto& n = b.add_node("snug", it::generic_name(4, 2));
  b.add_pod("snug", "a", 1500, 2048);
  b.add_pod("snug", "b", 1000, 1536);
  b.add_pod("snug", "c", 1000, 1536);
  // Turn it into the f1 node its pods would get.
  it::vm_need need{3500, 5 * GiB, 3, 0};
  auto size = it::smallest_right_size(need, 0);
  ASSERT_TRUE(size);
  auto type = it::right_sized_type(*size, 0);
  n.labels[std::string(model::labels::instance_type)] = type.name;
  n.capacity = type.capacity;
  n.allocatable = type.allocatable();
  auto cs = find_candidates(b.c);
  ASSERT_EQ(cs.all.size(), 1u);
  EXPECT_DOUBLE_EQ(cs.all[0].price, it::right_sized_price(*size));
  auto p = plan_disruption(b.c);
  EXPECT_TRUE(p.commands.empty());
}

TEST(RightSizedConsolidation, ValidationKeepsTheReplacementWhileThePodsNeedNoLargerSize) {
  auto b = half_empty_eight(with_f1());
  auto p = plan_disruption(b.c);
  ASSERT_EQ(p.commands.size(), 1u);
  auto same = validate(p.commands[0], b.c);
  ASSERT_TRUE(same) << same.error().message;
  // A pod arriving on the node needs a larger right-sized VM: the command no longer holds.
  b.add_pod("big", "late", 1000, 1024);
  auto grown = validate(p.commands[0], b.c);
  ASSERT_FALSE(grown);
  EXPECT_NE(grown.error().message.find("no longer fit"), std::string::npos)
      << grown.error().message;
}

}  // namespace
}  // namespace kp::disruption
