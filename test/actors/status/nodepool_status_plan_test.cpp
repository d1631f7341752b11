// The NodePool status plan: usage sums, conditions from the NodeClass and validation, and the
// comparison that keeps the actor from writing when nothing changed.
#include "actors/nodepool_status/nodepool_status_plan.hpp"

#include <gtest/gtest.h>

#include "snapshot_builder.hpp"

namespace kp::actors::nodepool_status {
namespace {

using test::make_claim;
using test::make_class;
using test::make_node;
using test::make_pool;
using test::snapshot_builder;

constexpr std::int64_t now = 1'750'000'000'000;

const kube::condition* condition_of(const kube::node_pool_status& s, const std::string& type) {
  for (const auto& c : s.conditions)
    if (c.type == type) return &c;
  return nullptr;
}

TEST(NodePoolUsage, sumsEachMachineOnceByNodeCapacityOrClaimCapacityBeforeRegistration) {
  auto snap = snapshot_builder()
                  .add(make_pool("general"))
                  .add(make_claim("general-a", "general", "node-a", "2", "4Gi"))
                  .add(make_node("node-a", "general", "4", "8Gi"))          // registered: node wins
                  .add(make_claim("general-b", "general", "", "2", "4Gi"))  // not registered yet
                  .add(make_node("node-c", "general", "1", "1Gi"))  // no claim: counted alone
                  .add(make_node("node-d", "other", "8", "8Gi"))
                  .build();
  auto u = usage_of("general", *snap);
  EXPECT_EQ(u.nodes, 3);
  EXPECT_EQ(u.resources.milli("cpu"), 7'000);
  EXPECT_EQ(u.resources.milli("memory"), 13LL * 1024 * 1024 * 1024 * 1000);
  EXPECT_EQ(u.resources.milli("pods"), 330'000);
  EXPECT_EQ(u.resources.milli("nodes"), 3'000);
}

TEST(NodePoolStatus, readyWhenTheNodeClassIsReadyAndTheTemplateValidates) {
  auto pool = make_pool("general");
  auto snap = snapshot_builder().add(pool).add(make_class("default", "True")).build();
  auto s = desired_status(pool, *snap, now);
  ASSERT_NE(condition_of(s, "NodeClassReady"), nullptr);
  EXPECT_EQ(condition_of(s, "NodeClassReady")->status, "True");
  EXPECT_EQ(condition_of(s, "ValidationSucceeded")->status, "True");
  EXPECT_EQ(condition_of(s, "Ready")->status, "True");
  EXPECT_EQ(s.node_class_observed_generation, 3);
  EXPECT_EQ(s.resources.at("nodes"), "0");
}

TEST(NodePoolStatus, aNodeClassWithoutConditionsMakesNodeClassReadyAndReadyUnknown) {
  auto pool = make_pool("general");
  auto snap = snapshot_builder().add(pool).add(make_class("default", "")).build();
  auto s = desired_status(pool, *snap, now);
  EXPECT_EQ(condition_of(s, "NodeClassReady")->status, "Unknown");
  EXPECT_EQ(condition_of(s, "NodeClassReady")->reason, "NodeClassReadinessUnknown");
  EXPECT_EQ(condition_of(s, "Ready")->status, "Unknown");
}

TEST(NodePoolStatus, aMissingNodeClassMakesThePoolNotReady) {
  auto pool = make_pool("general", "missing");
  auto s = desired_status(pool, *snapshot_builder().add(pool).build(), now);
  EXPECT_EQ(condition_of(s, "NodeClassReady")->status, "False");
  EXPECT_EQ(condition_of(s, "NodeClassReady")->reason, "NodeClassNotFound");
  EXPECT_EQ(condition_of(s, "Ready")->status, "False");
}

TEST(NodePoolStatus, aRestrictedLabelFailsValidation) {
  auto pool = make_pool("general");
  pool.spec.template_.metadata.labels["karpenter.sh/nodepool"] = "x";
  pool.spec.template_.spec.requirements.push_back(
      {"node.kubernetes.io/instance-cpu", "Gt", {"-1"}, std::nullopt});
  auto s =
      desired_status(pool, *snapshot_builder().add(make_class("default", "True")).build(), now);
  EXPECT_EQ(condition_of(s, "ValidationSucceeded")->status, "False");
  EXPECT_EQ(condition_of(s, "ValidationSucceeded")->reason, "NodePoolValidationFailed");
  EXPECT_NE(condition_of(s, "ValidationSucceeded")->message.find("karpenter.sh/nodepool"),
            std::string::npos);
  EXPECT_EQ(condition_of(s, "Ready")->status, "False");
  EXPECT_EQ(validate(pool).size(), 2u);
}

TEST(NodePoolStatus, anUnchangedConditionKeepsItsTransitionTimeSoTheStatusIsEquivalent) {
  auto pool = make_pool("general");
  auto snap = snapshot_builder().add(make_class("default", "True")).build();
  pool.status = desired_status(pool, *snap, now);
  auto again = desired_status(pool, *snap, now + 60'000);
  EXPECT_TRUE(equivalent(pool.status, again));
  EXPECT_EQ(condition_of(again, "Ready")->last_transition_time,
            condition_of(pool.status, "Ready")->last_transition_time);
}

TEST(NodePoolStatus, conditionsWrittenBySomeoneElseAreKept) {
  auto pool = make_pool("general");
  kube::condition other;
  other.type = "NodeRegistrationHealthy";
  other.status = "True";
  pool.status.conditions.push_back(other);
  auto s =
      desired_status(pool, *snapshot_builder().add(make_class("default", "True")).build(), now);
  EXPECT_NE(condition_of(s, "NodeRegistrationHealthy"), nullptr);
  EXPECT_EQ(s.conditions.size(), 4u);
}

TEST(NodePoolStatus, quantitiesAreComparedByAmountNotSpelling) {
  kube::node_pool_status a, b;
  a.resources = {{"memory", "1Gi"}};
  b.resources = {{"memory", "1073741824"}};
  EXPECT_TRUE(equivalent(a, b));
  b.resources = {{"memory", "2Gi"}};
  EXPECT_FALSE(equivalent(a, b));
}

TEST(NodePoolStatusPatch, removesResourcesThatDisappearedWithNull) {
  kube::node_pool_status current, desired;
  current.resources = {{"cpu", "2"}, {"nvidia.com/gpu", "1"}};
  desired.resources = {{"cpu", "4"}};
  auto body = status_patch(current, desired);
  EXPECT_NE(body.find("\"nvidia.com/gpu\":null"), std::string::npos) << body;
  EXPECT_NE(body.find("\"cpu\":\"4\""), std::string::npos) << body;
}

TEST(NodePoolManagement, onlyPoolsOfProxmoxNodeClassesAreOurs) {
  auto pool = make_pool("general");
  EXPECT_TRUE(is_managed(pool));
  pool.spec.template_.spec.node_class_ref = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
  EXPECT_FALSE(is_managed(pool));
}

}  // namespace
}  // namespace kp::actors::nodepool_status
