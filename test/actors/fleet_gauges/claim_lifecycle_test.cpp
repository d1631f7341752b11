// A NodeClaim's lifecycle phase and the time each step took, read from the claim alone.
#include "actors/fleet_gauges/claim_lifecycle.hpp"

#include <gtest/gtest.h>

namespace kp::actors::fleet_gauges {
namespace {

kube::node_claim claim_created_at(const std::string& when) {
  kube::node_claim c;
  c.metadata.name = "general-abc";
  c.metadata.labels["karpenter.sh/nodepool"] = "general";
  c.metadata.creation_timestamp = when;
  return c;
}

void set(kube::node_claim& c, const std::string& type, const std::string& status,
         const std::string& when) {
  kube::condition cond;
  cond.type = type;
  cond.status = status;
  cond.last_transition_time = when;
  c.status.conditions.push_back(cond);
}

TEST(ClaimLifecycle, aClaimMovesThroughEachPhaseAsItsConditionsTurnTrue) {
  auto c = claim_created_at("2025-01-01T00:00:00Z");
  EXPECT_EQ(phase_of(c), claim_phase::launching);
  set(c, "Launched", "False", "2025-01-01T00:00:01Z");
  EXPECT_EQ(phase_of(c), claim_phase::launching) << "a failed launch is still launching";
  c.status.conditions.clear();
  set(c, "Launched", "True", "2025-01-01T00:00:05Z");
  EXPECT_EQ(phase_of(c), claim_phase::registering);
  set(c, "Registered", "True", "2025-01-01T00:00:45Z");
  EXPECT_EQ(phase_of(c), claim_phase::initializing);
  set(c, "Initialized", "True", "2025-01-01T00:00:50Z");
  EXPECT_EQ(phase_of(c), claim_phase::ready);
  c.metadata.deletion_timestamp = "2025-01-01T01:00:00Z";
  EXPECT_EQ(phase_of(c), claim_phase::terminating);
}

TEST(ClaimLifecycle, eachStepLastsFromThePreviousStepsTransitionTime) {
  auto c = claim_created_at("2025-01-01T00:00:00Z");
  set(c, "Launched", "True", "2025-01-01T00:00:05Z");
  set(c, "Registered", "True", "2025-01-01T00:00:45Z");
  set(c, "Initialized", "True", "2025-01-01T00:00:50Z");
  auto s = steps_of(c);
  ASSERT_TRUE(s.launch && s.registration && s.initialization);
  EXPECT_DOUBLE_EQ(s.launch->seconds, 5);
  EXPECT_DOUBLE_EQ(s.registration->seconds, 40);
  EXPECT_DOUBLE_EQ(s.initialization->seconds, 5);
  EXPECT_EQ(s.initialization->finished_ms, 1735689650000);
}

TEST(ClaimLifecycle, stepsWithMissingUnparsableOrBackwardTimesAreLeftOut) {
  auto c = claim_created_at("not a time");
  set(c, "Launched", "True", "2025-01-01T00:00:05Z");
  set(c, "Registered", "True", "2025-01-01T00:00:04Z");  // before Launched
  set(c, "Initialized", "Unknown", "2025-01-01T00:00:50Z");
  auto s = steps_of(c);
  EXPECT_FALSE(s.launch);
  EXPECT_FALSE(s.registration);
  EXPECT_FALSE(s.initialization);
}

TEST(ClaimLifecycle, theNodePoolComesFromTheClaimsLabel) {
  auto c = claim_created_at("2025-01-01T00:00:00Z");
  EXPECT_EQ(nodepool_of(c), "general");
  c.metadata.labels.clear();
  EXPECT_EQ(nodepool_of(c), "");
}

TEST(ClaimLifecycle, everyPhaseHasItsOwnName) {
  std::set<std::string_view> names;
  for (auto p : all_claim_phases) names.insert(to_string(p));
  EXPECT_EQ(names, (std::set<std::string_view>{"Launching", "Registering", "Initializing", "Ready",
                                               "Terminating"}));
}

}  // namespace
}  // namespace kp::actors::fleet_gauges
