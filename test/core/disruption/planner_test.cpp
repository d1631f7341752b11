#include "core/disruption/planner.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "test/core/disruption/fixture.hpp"

namespace kp::disruption {
namespace {

using namespace std::chrono_literals;
using fixture::builder;

std::string type4() {
  return instance_types::generic_name(4, 2);
}  // 4 vCPU, 8 GB
std::string type2() {
  return instance_types::generic_name(2, 2);
}  // 2 vCPU, 4 GB
std::string type8() {
  return instance_types::generic_name(8, 2);
}  // 8 vCPU, 16 GB

bool has_reason(const plan& p, const std::string& node, const std::string& text) {
  return std::any_of(p.not_disrupted.begin(), p.not_disrupted.end(), [&](const blocked_node& b) {
    return b.node == node && b.reason.find(text) != std::string::npos;
  });
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// Three 4-vCPU nodes each running 1.5 vCPU: too full to empty one into the others, so only a
// merge helps.
builder three_half_empty() {
  builder b;
  for (int n = 0; n < 3; ++n) {
    auto name = "node-" + std::to_string(n);
    b.add_node(name, type4());
    for (int i = 0; i < 3; ++i) b.add_pod(name, name + "-pod-" + std::to_string(i), 500, 512);
  }
  return b;
}

// Nodes whose pods fill them: nothing can go and no cheaper shape exists.
builder well_packed(int nodes) {
  builder b;
  for (int n = 0; n < nodes; ++n) {
    auto name = "node-" + std::to_string(n);
    b.add_node(name, type4());
    for (int i = 0; i < 4; ++i) b.add_pod(name, name + "-pod-" + std::to_string(i), 900, 1024);
  }
  return b;
}

TEST(DisruptionPlanner, EmptyNodesAreDeletedTogether) {
  builder b;
  b.add_node("empty-a", type4());
  b.add_node("empty-b", type4());
  b.add_node("busy", type4());
  b.add_pod("busy", "web", 3000, 1024);
  auto p = plan_disruption(b.c);
  ASSERT_EQ(p.method, "emptiness");
  ASSERT_EQ(p.commands.size(), 1u);
  EXPECT_EQ(p.commands[0].why, command_reason::empty);
  EXPECT_EQ(sorted(p.commands[0].nodes), (std::vector<std::string>{"empty-a", "empty-b"}));
  EXPECT_TRUE(p.commands[0].replacements.empty());
  EXPECT_NE(p.commands[0].decision.find("2 empty node(s)"), std::string::npos);
}

TEST(DisruptionPlanner, DaemonSetPodsDoNotKeepANodeFromBeingEmpty) {
  builder b;
  b.add_node("only-ds", type4());
  b.add_pod("only-ds", "agent", 100, 64).owners = {{"DaemonSet", "agent", "uid-ds", true}};
  auto p = plan_disruption(b.c);
  ASSERT_EQ(p.commands.size(), 1u);
  EXPECT_EQ(p.commands[0].nodes, std::vector<std::string>{"only-ds"});
}

TEST(DisruptionPlanner, ThreeHalfEmptyNodesMergeIntoOneCheaperNode) {
  auto b = three_half_empty();
  auto p = plan_disruption(b.c);
  ASSERT_EQ(p.method, "multi-node");
  ASSERT_EQ(p.commands.size(), 1u);
  const auto& cmd = p.commands[0];
  EXPECT_EQ(cmd.why, command_reason::underutilized);
  EXPECT_EQ(sorted(cmd.nodes), (std::vector<std::string>{"node-0", "node-1", "node-2"}));
  ASSERT_EQ(cmd.replacements.size(), 1u);
  const auto& first = b.c.state.instance_types[cmd.replacements[0].instance_types.front()];
  EXPECT_EQ(first.vm_cpus, 8);
  EXPECT_LT(cmd.replacements[0].price, 3 * b.type(type4()).offerings[0].price);
  EXPECT_GT(cmd.savings, 0);
  EXPECT_NE(cmd.decision.find("merge 3"), std::string::npos) << cmd.decision;
}

TEST(DisruptionPlanner, DoNotDisruptOnAPodBlocksItsNodeWithThatReason) {
  builder b;
  b.add_node("guarded", type4());
  b.add_node("empty", type4());
  b.add_pod("guarded", "batch-job", 100, 64).annotations = {
      {"karpenter.sh/do-not-disrupt", "true"}};
  auto p = plan_disruption(b.c);
  ASSERT_EQ(p.commands.size(), 1u);
  EXPECT_EQ(p.commands[0].nodes, std::vector<std::string>{"empty"});
  EXPECT_TRUE(
      has_reason(p, "guarded", "pod default/batch-job has annotation karpenter.sh/do-not-disrupt"));
}

TEST(DisruptionPlanner, DoNotDisruptDurationBlocksOnlyUntilItElapses) {
  builder b;
  b.add_node("young-job", type4());
  b.add_node("old-job", type4());
  b.add_pod("young-job", "young", 100, 64, 30min).annotations = {
      {"karpenter.sh/do-not-disrupt", "1h"}};
  b.add_pod("old-job", "old", 100, 64, 2h).annotations = {{"karpenter.sh/do-not-disrupt", "1h"}};
  auto cs = find_candidates(b.c);
  for (const auto& k : cs.all) {
    if (k.name == "young-job") {
      EXPECT_NE(k.blocked, "");
    }
    if (k.name == "old-job") {
      EXPECT_EQ(k.blocked, "");
    }
  }
}

TEST(DisruptionPlanner, DoNotDisruptOnTheNodeBlocksIt) {
  builder b;
  b.add_node("pinned", type4()).annotations = {{"karpenter.sh/do-not-disrupt", "true"}};
  auto p = plan_disruption(b.c);
  EXPECT_TRUE(p.commands.empty());
  EXPECT_TRUE(has_reason(p, "pinned", "the node has annotation karpenter.sh/do-not-disrupt"));
}

TEST(DisruptionPlanner, APdbAllowingZeroDisruptionsBlocksTheNode) {
  auto b = three_half_empty();
  b.c.pdbs.push_back({"web-pdb", "default", {{{"app", "node-1-pod-0"}}, {}}, 0});
  auto p = plan_disruption(b.c);
  EXPECT_TRUE(has_reason(p, "node-1",
                         "PodDisruptionBudget default/web-pdb allows 0 disruptions for pod "
                         "default/node-1-pod-0"));
  for (const auto& cmd : p.commands)
    EXPECT_EQ(std::count(cmd.nodes.begin(), cmd.nodes.end(), "node-1"), 0);
}

TEST(DisruptionPlanner, ABudgetOf30PercentLetsThreeOfTenEmptyNodesGo) {
  builder b;
  b.pool().disruption.budgets = {{"30%", "", "", {}}};
  for (int n = 0; n < 10; ++n) b.add_node("empty-" + std::to_string(n), type4());
  auto p = plan_disruption(b.c);
  ASSERT_EQ(p.commands.size(), 1u);
  EXPECT_EQ(p.commands[0].nodes.size(), 3u);
  int budget_reasons = 0;
  for (const auto& r : p.not_disrupted)
    if (r.reason.find("allows no more Empty disruptions") != std::string::npos) ++budget_reasons;
  EXPECT_EQ(budget_reasons, 7);
}

TEST(DisruptionPlanner, BudgetsApplyPerReason) {
  auto b = well_packed(2);
  b.add_node("empty", type4());
  b.pool().disruption.budgets = {{"100%", "", "", {}}, {"0", "", "", {"Drifted"}}};
  b.c.drift["default"].nodepool_hash = "hash-b";
  auto p = plan_disruption(b.c);
  ASSERT_EQ(p.method, "emptiness");  // Empty is still allowed
  b.c.state.nodes.pop_back();
  b.c.state.nodeclaims.pop_back();
  auto q = plan_disruption(b.c);
  EXPECT_TRUE(q.commands.empty());  // Drifted is not
  EXPECT_TRUE(has_reason(q, "node-0", "allows no more Drifted disruptions"));
}

TEST(DisruptionPlanner, APodUnderTwoPdbsBlocksItsNode) {
  builder b;
  b.add_node("shared", type4());
  b.add_pod("shared", "web", 100, 64);
  b.c.pdbs.push_back({"one", "default", {{{"app", "web"}}, {}}, 5});
  b.c.pdbs.push_back({"two", "default", {}, 5});
  auto p = plan_disruption(b.c);
  EXPECT_TRUE(p.commands.empty());
  EXPECT_TRUE(has_reason(p, "shared", "covered by more than one PodDisruptionBudget"));
}

TEST(DisruptionPlanner, AMisconfiguredBudgetFailsClosed) {
  builder b;
  b.pool().disruption.budgets = {{"lots", "", "", {}}};
  b.add_node("empty", type4());
  EXPECT_TRUE(plan_disruption(b.c).commands.empty());
}

TEST(DisruptionPlanner, DriftedNodesAreReplacedWithinTheBudget) {
  auto b = well_packed(4);
  b.pool().disruption.budgets = {{"1", "", "", {}}};
  b.c.drift["default"].nodeclass_hash = "class-b";  // the node class changed
  auto p = plan_disruption(b.c);
  ASSERT_EQ(p.method, "drift");
  ASSERT_EQ(p.commands.size(), 1u);
  EXPECT_EQ(p.commands[0].why, command_reason::drifted);
  EXPECT_EQ(p.commands[0].nodes.size(), 1u);
  EXPECT_EQ(p.commands[0].replacements.size(), 1u);
  EXPECT_NE(p.commands[0].decision.find("NodeClassDrifted"), std::string::npos);

  // One node already being disrupted uses the whole budget of 1.
  b.node(3).taints.push_back({"karpenter.sh/disrupted", "", "NoSchedule"});
  auto q = plan_disruption(b.c);
  EXPECT_TRUE(q.commands.empty());
  EXPECT_TRUE(has_reason(q, "node-0", "allows no more Drifted disruptions"));
}

TEST(DisruptionPlanner, ImageChangeDrifts) {
  auto b = well_packed(2);
  b.c.drift["default"].image_id = "image-b";
  auto p = plan_disruption(b.c);
  ASSERT_EQ(p.method, "drift");
  EXPECT_NE(p.commands[0].decision.find("ImageDrifted"), std::string::npos);
}

TEST(DisruptionPlanner, AHashVersionMismatchRestampsAndNeverDrifts) {
  auto b = well_packed(2);
  b.c.drift["default"].nodepool_hash = "hash-b";
  b.c.drift["default"].nodepool_hash_version = "v4";
  auto p = plan_disruption(b.c);
  EXPECT_TRUE(p.commands.empty());
  ASSERT_EQ(p.restamps.size(), 2u);
  EXPECT_EQ(p.restamps[0].annotations.at("karpenter.sh/nodepool-hash"), "hash-b");
  EXPECT_EQ(p.restamps[0].annotations.at("karpenter.sh/nodepool-hash-version"), "v4");
  for (const auto& k : find_candidates(b.c).all) EXPECT_EQ(k.drift, "");
}

TEST(DisruptionPlanner, AnExpiredNodeIsReplacedRegardlessOfBudget) {
  auto b = well_packed(2);
  b.pool().disruption.budgets = {{"0", "", "", {}}};
  b.claim("node-0").creation_unix_ms = b.now_ms - 800LL * 3600 * 1000;  // expireAfter 720h
  auto p = plan_disruption(b.c);
  EXPECT_TRUE(p.commands.empty());
  ASSERT_EQ(p.expirations.size(), 1u);
  EXPECT_EQ(p.expirations[0].why, command_reason::expired);
  EXPECT_EQ(p.expirations[0].nodes, std::vector<std::string>{"node-0"});
  EXPECT_EQ(p.expirations[0].replacements.size(), 1u);
}

TEST(DisruptionPlanner, ExpiryNeverMeansNoExpiration) {
  auto b = well_packed(1);
  b.claim("node-0").creation_unix_ms = b.now_ms - 8000LL * 3600 * 1000;
  b.claim("node-0").expire_after = "Never";
  EXPECT_TRUE(plan_disruption(b.c).expirations.empty());
}

TEST(DisruptionPlanner, NothingHappensBeforeConsolidateAfterHasElapsed) {
  builder b;
  b.pool().disruption.consolidate_after = "10m";
  b.add_node("fresh-empty", type4(), 1min);
  auto p = plan_disruption(b.c);
  EXPECT_TRUE(p.commands.empty());
  EXPECT_EQ(p.method, "");
  b.c.now += std::chrono::minutes(10);
  EXPECT_EQ(plan_disruption(b.c).method, "emptiness");
}

TEST(DisruptionPlanner, ConsolidateAfterNeverDisablesConsolidation) {
  builder b;
  b.pool().disruption.consolidate_after = "Never";
  b.add_node("empty", type4());
  EXPECT_TRUE(plan_disruption(b.c).commands.empty());
}

TEST(DisruptionPlanner, AStableClusterMakesNoMoveInAHundredPasses) {
  auto b = well_packed(20);
  int moves = 0;
  for (int pass = 0; pass < 100; ++pass) {
    b.c.now += std::chrono::seconds(10);
    auto p = plan_disruption(b.c);
    moves += static_cast<int>(p.commands.size() + p.expirations.size());
  }
  EXPECT_EQ(moves, 0);
}

TEST(DisruptionPlanner, AReplacementMustBeStrictlyCheaper) {
  builder b;
  // 1.6 vCPU on a 2-vCPU node: the only shape that holds it is the node's own.
  b.add_node("snug", type2());
  b.add_pod("snug", "app", 1600, 1024);
  auto p = plan_disruption(b.c);
  EXPECT_TRUE(p.commands.empty());
  EXPECT_TRUE(has_reason(p, "snug", "not consolidated"));
}

TEST(DisruptionPlanner, AReplacementOfEqualPriceIsNotMade) {
  builder b;
  // 3 vCPU / 9000Mi on a 4 vCPU / 12 GB node: cheaper shapes hold the CPU or the memory but
  // not both, so the simulation's cheapest fit is the node's own type at the same price.
  b.add_node("same-shape", instance_types::generic_name(4, 3));
  b.add_pod("same-shape", "app", 3000, 9000);
  auto p = plan_disruption(b.c);
  EXPECT_TRUE(p.commands.empty());
  EXPECT_TRUE(has_reason(p, "same-shape", "no replacement is cheaper"));
}

TEST(DisruptionPlanner, AnOversizedNodeIsReplacedByACheaperOne) {
  builder b;
  b.add_node("oversized", type8());
  b.add_pod("oversized", "app", 1500, 1024);
  auto p = plan_disruption(b.c);
  ASSERT_EQ(p.method, "single-node");
  ASSERT_EQ(p.commands[0].replacements.size(), 1u);
  const auto& t = b.c.state.instance_types[p.commands[0].replacements[0].instance_types.front()];
  EXPECT_EQ(t.vm_cpus, 2);
  EXPECT_LT(p.commands[0].replacements[0].price, b.type(type8()).offerings[0].price);
}

TEST(DisruptionPlanner, SingleNodeConsolidationRotatesThroughCandidatesUnderASimulationCap) {
  builder b;
  // Two oversized nodes: each alone would be replaced by a cheaper one.
  b.add_node("oversized-a", type8());
  b.add_pod("oversized-a", "a", 1500, 1024);
  b.add_node("oversized-b", type8());
  b.add_pod("oversized-b", "b", 5500, 1024);
  planner_options opts;
  opts.multi_node_max = 0;
  opts.single_node_max_simulations = 0;
  auto none = plan_disruption(b.c, opts);
  EXPECT_TRUE(none.commands.empty());
  EXPECT_EQ(none.single_node_evaluated, 0u);
  opts.single_node_max_simulations = 1;
  auto first = plan_disruption(b.c, opts);
  ASSERT_EQ(first.commands.size(), 1u);
  opts.single_node_start = 1;
  auto second = plan_disruption(b.c, opts);
  ASSERT_EQ(second.commands.size(), 1u);
  EXPECT_NE(first.commands[0].nodes, second.commands[0].nodes);
  EXPECT_EQ(second.simulations, 1u);
}

TEST(DisruptionPlanner, WhenEmptyPolicyLeavesUnderutilizedNodesAlone) {
  auto b = three_half_empty();
  b.pool().disruption.consolidation_policy = "WhenEmpty";
  EXPECT_TRUE(plan_disruption(b.c).commands.empty());
}

TEST(DisruptionPlanner, BalancedAtBreakEvenRejectsPaidMergesButNotADelete) {
  // Three alike nodes: merging them into one paid node scores 1 - replacement/3 prices < 1; a
  // delete whose pods fit elsewhere scores exactly 1 (a third of the cost, a third of the pods).
  auto b = three_half_empty();
  b.pool().disruption.consolidation_policy = "Balanced";
  planner_options strict;
  strict.balanced_k = 1;
  auto p = plan_disruption(b.c, strict);
  ASSERT_EQ(p.method, "single-node");
  ASSERT_EQ(p.commands.size(), 1u);
  EXPECT_TRUE(p.commands[0].replacements.empty()) << p.commands[0].decision;
  EXPECT_TRUE(std::any_of(p.scored.begin(), p.scored.end(), [](const scored_move& m) {
    return m.consolidation_type == "multi" && !m.approved && m.score && m.score->score() < 1;
  }));
  EXPECT_EQ(plan_disruption(b.c).method, "multi-node");  // k = 2 approves the merge
}

TEST(DisruptionValidation, AnUnchangedClusterConfirmsTheCommand) {
  auto b = three_half_empty();
  auto p = plan_disruption(b.c);
  ASSERT_EQ(p.commands.size(), 1u);
  b.c.now += std::chrono::seconds(15);
  auto v = validate(p.commands[0], b.c);
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(sorted(v->nodes), sorted(p.commands[0].nodes));
}

TEST(DisruptionValidation, APodArrivingOnAnEmptyNodeDropsItFromTheCommand) {
  builder b;
  b.add_node("empty-a", type4());
  b.add_node("empty-b", type4());
  auto p = plan_disruption(b.c);
  ASSERT_EQ(p.commands.size(), 1u);
  b.c.now += std::chrono::seconds(15);
  b.add_pod("empty-a", "newcomer", 100, 64, 5s);
  auto v = validate(p.commands[0], b.c);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->nodes, std::vector<std::string>{"empty-b"});
}

TEST(DisruptionValidation, ABlockedCandidateRejectsAConsolidation) {
  auto b = three_half_empty();
  auto p = plan_disruption(b.c);
  ASSERT_EQ(p.commands.size(), 1u);
  auto protected_pod = *b.c.state.bound_pods[0];
  protected_pod.annotations = {{"karpenter.sh/do-not-disrupt", "true"}};
  b.c.state.bound_pods[0] = model::share(std::move(protected_pod));
  auto v = validate(p.commands[0], b.c);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().code, "churn");
}

TEST(DisruptionValidation, ANewPodThatNoLongerFitsRejectsADelete) {
  builder b;
  b.add_node("small", type4());
  b.add_pod("small", "a", 1000, 512);
  b.add_node("roomy", type4());
  b.add_pod("roomy", "b", 1500, 512);
  auto p = plan_disruption(b.c);
  ASSERT_EQ(p.commands.size(), 1u);
  ASSERT_TRUE(p.commands[0].replacements.empty());
  // The destination fills up meanwhile.
  const auto target = p.commands[0].nodes[0] == "small" ? "roomy" : "small";
  b.add_pod(target, "filler", 2300, 512);
  b.c.last_pod_event_unix_ms.clear();
  auto v = validate(p.commands[0], b.c);
  EXPECT_FALSE(v.ok());
}

}  // namespace
}  // namespace kp::disruption

namespace kp::disruption {
namespace {

// A static NodePool of `n` nodes ("static-0".."static-<n-1>"), each with one small pod.
fixture::builder static_pool(int n) {
  builder b;
  b.pool().replicas = n;
  for (int i = 0; i < n; ++i) {
    const std::string name = "static-" + std::to_string(i);
    b.add_node(name, type4());
    b.add_pod(name, "pod-" + std::to_string(i), 100, 64);
  }
  return b;
}

TEST(StaticPoolDisruption, ADriftedStaticNodeIsReplacedOneForOneFromThePoolTemplate) {
  auto b = static_pool(2);
  b.pool().disruption.budgets = {{"1", "", "", {}}};
  b.c.drift["default"].nodeclass_hash = "class-b";
  auto p = plan_disruption(b.c);
  ASSERT_EQ(p.method, "drift");
  ASSERT_EQ(p.commands.size(), 1u);
  const auto& cmd = p.commands[0];
  EXPECT_EQ(cmd.nodes.size(), 1u);
  ASSERT_EQ(cmd.replacements.size(), 1u);
  EXPECT_EQ(cmd.replacements[0].nodepool, "default");
  EXPECT_TRUE(cmd.replacements[0].pods.empty());
  EXPECT_EQ(cmd.replacements[0].instance_types.size(), b.c.state.instance_types.size());
  EXPECT_NE(cmd.decision.find("static NodePool default"), std::string::npos) << cmd.decision;
  // Validation keeps the one-for-one replacement (no simulation of the pods).
  auto v = validate(cmd, b.c);
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(v->replacements.size(), 1u);
}

TEST(StaticPoolDisruption, LimitsNodesHoldsTheDriftReplacementBack) {
  auto b = static_pool(2);
  b.pool().limits.set("nodes", model::quantity::from_units(2));
  b.c.drift["default"].nodeclass_hash = "class-b";
  auto p = plan_disruption(b.c);
  EXPECT_TRUE(p.commands.empty());
  EXPECT_TRUE(has_reason(p, "static-0", "limits.nodes of NodePool default"));
  b.pool().limits.set("nodes", model::quantity::from_units(3));
  EXPECT_EQ(plan_disruption(b.c).commands.size(), 1u);
}

TEST(StaticPoolDisruption, AStaticPoolScalingDownIsNotReplacedForDrift) {
  auto b = static_pool(3);
  b.pool().replicas = 2;
  b.c.drift["default"].nodeclass_hash = "class-b";
  auto p = plan_disruption(b.c);
  EXPECT_TRUE(p.commands.empty());
  EXPECT_TRUE(has_reason(p, "static-0", "is scaling down to 2"));
}

TEST(StaticPoolDisruption, WithTheGateOffStaticNodesAreNotReplaced) {
  auto b = static_pool(1);
  b.c.drift["default"].nodeclass_hash = "class-b";
  planner_options o;
  o.static_capacity = false;
  auto p = plan_disruption(b.c, o);
  EXPECT_TRUE(p.commands.empty());
  EXPECT_TRUE(has_reason(p, "static-0", "StaticCapacity feature gate is off"));
}

TEST(StaticPoolDisruption, ConsolidationLeavesStaticNodesAlone) {
  builder b;
  b.pool().replicas = 3;
  b.add_node("empty", type4());
  b.add_node("light-a", type4());
  b.add_pod("light-a", "a", 100, 64);
  b.add_node("light-b", type4());
  b.add_pod("light-b", "b", 100, 64);
  auto p = plan_disruption(b.c);
  EXPECT_TRUE(p.commands.empty()) << p.method;
  b.pool().replicas.reset();  // the same nodes in a dynamic pool are consolidated
  EXPECT_FALSE(plan_disruption(b.c).commands.empty());
}

}  // namespace
}  // namespace kp::disruption
