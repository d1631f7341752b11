// Static NodePools (spec.replicas) and limits.nodes: what the provisioner creates and removes.
#include <gtest/gtest.h>

#include "core/scheduling/static_capacity.hpp"
#include "test/core/scheduling/fixtures.hpp"

namespace {

using namespace kp::scheduling;
using namespace kp::scheduling::test;
namespace L = kp::model::labels;

snapshot static_snapshot(std::int64_t replicas) {
  auto s = base_snapshot();
  s.nodepools[0].name = "static";
  s.nodepools[0].replicas = replicas;
  return s;
}

kp::model::nodeclaim claim(const std::string& name, const std::string& pool,
                           const std::string& node = "") {
  kp::model::nodeclaim nc;
  nc.name = name;
  nc.nodepool = pool;
  nc.node_name = node;
  if (!node.empty()) nc.provider_id = "proxmox://region1/" + name;
  return nc;
}

void add_claim_with_node(snapshot& s, const std::string& name, const std::string& pool,
                         std::vector<kp::model::taint> node_taints = {}) {
  s.nodeclaims.push_back(kp::model::share(claim(name, pool, name)));
  auto n = make_node(name, "z1", 4, 8);
  n.labels[std::string(L::nodepool)] = pool;
  n.taints = std::move(node_taints);
  s.nodes.push_back(kp::model::share(n));
}

kp::model::pod bound(const std::string& name, const std::string& node) {
  auto p = make_pod(name, 100, 100);
  p.unschedulable = false;
  p.node_name = node;
  p.phase = "Running";
  return p;
}

TEST(StaticCapacity, AStaticPoolCreatesItsReplicasWithoutAnyPod) {
  auto plans = plan_static_capacity(static_snapshot(2));
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].nodepool, "static");
  EXPECT_EQ(plans[0].create, 2);
  EXPECT_TRUE(plans[0].remove.empty());
}

TEST(StaticCapacity, InFlightAndRunningClaimsCountTowardTheReplicas) {
  auto s = static_snapshot(3);
  add_claim_with_node(s, "static-a", "static");
  s.nodeclaims.push_back(kp::model::share(claim("static-b", "static")));  // in flight, no node yet
  s.nodeclaims.push_back(
      kp::model::share(claim("other-a", "other")));  // another pool's claim does not count
  auto plans = plan_static_capacity(s);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].create, 1);
  EXPECT_EQ(plans[0].count.running, 2);
}

TEST(StaticCapacity, APoolAtItsReplicasHasNoPlan) {
  auto s = static_snapshot(1);
  add_claim_with_node(s, "static-a", "static");
  EXPECT_TRUE(plan_static_capacity(s).empty());
}

TEST(StaticCapacity, DynamicAndNotReadyPoolsAreLeftAlone) {
  auto s = base_snapshot();  // no replicas
  s.nodepools.push_back(make_pool("static"));
  s.nodepools.back().replicas = 2;
  s.nodepools.back().ready = false;
  EXPECT_TRUE(plan_static_capacity(s).empty());
}

TEST(StaticCapacity, LimitsNodesCapsCreationCountingDeletingAndInFlightClaims) {
  auto s = static_snapshot(4);
  s.nodepools[0].limits.set("nodes", kp::model::quantity::from_units(3));
  add_claim_with_node(s, "static-a", "static");
  auto going = claim("static-b", "static", "static-b");
  going.terminating = true;  // still there: counts against the limit, not the replicas
  s.nodeclaims.push_back(kp::model::share(going));
  s.nodeclaims.push_back(kp::model::share(claim("static-c", "static")));  // in flight
  auto plans = plan_static_capacity(s);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].count.running, 2);
  EXPECT_EQ(plans[0].count.deleting, 1);
  EXPECT_EQ(plans[0].create, 0);  // 3 claims exist, the limit is 3
  EXPECT_EQ(plans[0].held_back, 2);
  ASSERT_TRUE(plans[0].node_limit.has_value());
  EXPECT_EQ(*plans[0].node_limit, 3);
  EXPECT_EQ(node_limit_room(s, s.nodepools[0]), 0);

  s.nodeclaims.erase(s.nodeclaims.begin() + 1);  // the deleting one is gone
  plans = plan_static_capacity(s);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].create, 1);
  EXPECT_EQ(plans[0].held_back, 1);
}

TEST(StaticCapacity, SurplusGoesUnlaunchedFirstThenEmptyThenLeastBusyAndDoNotDisruptLast) {
  auto s = static_snapshot(1);
  add_claim_with_node(s, "static-busy", "static");
  add_claim_with_node(s, "static-guarded", "static");
  add_claim_with_node(s, "static-empty", "static");
  add_claim_with_node(s, "static-one", "static");
  s.nodeclaims.push_back(kp::model::share(claim("static-unlaunched", "static")));
  for (int i = 0; i < 3; ++i)
    s.bound_pods.push_back(kp::model::share(bound("b" + std::to_string(i), "static-busy")));
  auto guarded = bound("g", "static-guarded");
  guarded.annotations[std::string(kp::model::annotations::do_not_disrupt)] = "true";
  s.bound_pods.push_back(kp::model::share(guarded));
  s.bound_pods.push_back(kp::model::share(bound("o", "static-one")));
  auto plans = plan_static_capacity(s);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].create, 0);
  EXPECT_EQ(plans[0].remove, (std::vector<std::string>{"static-unlaunched", "static-empty",
                                                       "static-one", "static-busy"}));
}

TEST(StaticCapacity, ADriftReplacementInProgressIsNeitherSurplusNorMissing) {
  auto s = static_snapshot(2);
  add_claim_with_node(s, "static-a", "static");
  add_claim_with_node(s, "static-old", "static",
                      {{std::string(kp::model::taint_keys::disrupted), "", "NoSchedule"}});
  s.nodeclaims.push_back(kp::model::share(claim("static-replacement", "static")));
  EXPECT_TRUE(plan_static_capacity(s).empty());
  auto c = count_static_pool(s, "static");
  EXPECT_EQ(c.running, 2);
  EXPECT_EQ(c.pending_disruption, 1);
}

TEST(StaticCapacity, TheStaticNodeClaimIsThePoolTemplateWithEveryFittingType) {
  auto s = static_snapshot(1);
  s.nodepools[0].template_.requirements = {{std::string(L::zone), op::in, {"z2"}, std::nullopt}};
  s.nodepools[0].template_.taints = {{"dedicated", "db", "NoSchedule"}};
  std::string why;
  auto nc = static_nodeclaim(s, "static", {}, why);
  ASSERT_TRUE(nc.has_value()) << why;
  EXPECT_EQ(nc->nodepool, "static");
  EXPECT_TRUE(nc->pods.empty());
  EXPECT_EQ(req_values(*nc, L::zone), std::vector<std::string>{"z2"});
  ASSERT_EQ(nc->taints.size(), 1u);
  EXPECT_EQ(nc->instance_types.size(), s.instance_types.size());
  EXPECT_FALSE(static_nodeclaim(s, "missing", {}, why).has_value());
  EXPECT_NE(why.find("missing"), std::string::npos);
}

TEST(StaticCapacity, DynamicProvisioningSkipsStaticPools) {
  auto s = static_snapshot(1);
  s.pods.push_back(make_pod("p", 100, 100));
  auto p = provision(s);
  EXPECT_TRUE(p.nodeclaims.empty());
  ASSERT_EQ(p.errors.size(), 1u);
}

TEST(LimitsNodes, InFlightClaimsCountAndTheReasonNamesThePoolAndTheLimit) {
  auto s = base_snapshot();
  s.nodepools[0].limits.set("nodes", kp::model::quantity::from_units(2));
  add_claim_with_node(s, "default-a", "default", {{"full", "", "NoSchedule"}});
  auto in_flight = claim("default-b", "default");  // not launched
  in_flight.taints = {{"full", "", "NoSchedule"}};
  s.nodeclaims.push_back(kp::model::share(in_flight));
  s.pods.push_back(make_pod("third", 100, 100));
  auto p = provision(s);
  EXPECT_TRUE(p.nodeclaims.empty());
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].reason.find("NodePool \"default\""), std::string::npos)
      << p.errors[0].reason;
  EXPECT_NE(p.errors[0].reason.find("node limits have been exhausted for nodepool"),
            std::string::npos)
      << p.errors[0].reason;
  EXPECT_NE(p.errors[0].reason.find("limits.nodes: 2"), std::string::npos) << p.errors[0].reason;

  s.nodepools[0].limits.set("nodes", kp::model::quantity::from_units(3));
  p = provision(s);
  EXPECT_TRUE(p.errors.empty());
  EXPECT_EQ(p.nodeclaims.size(), 1u);
}

}  // namespace
