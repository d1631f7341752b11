// The Balanced consolidation policy's score against the worked examples of
// designs/balanced-consolidation.md (Karpenter v1.14), then in the planner: the pool totals it
// normalizes against, the delete-ratio pre-filter and the moves it reports for the metrics.
#include "core/disruption/balanced.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/disruption/planner.hpp"
#include "test/core/disruption/fixture.hpp"

namespace kp::disruption {
namespace {

using namespace std::chrono_literals;
using fixture::builder;

// "Examples": eight m7i.xlarge ($4.84/day) and two m7i.2xlarge ($9.68/day), 80 pods of cost 1.
constexpr pool_totals example_pool{58.08, 80};

TEST(BalancedScore, OversizedNodeReplaceIsApproved) {
  // Examples, "Oversized Node (approved)": m7i.2xlarge with 3 pods -> m7i.large, saves $7.26.
  auto s = score_move(7.26, 3, example_pool);
  EXPECT_NEAR(s.savings_fraction, 0.125, 1e-9);
  EXPECT_NEAR(s.disruption_fraction, 0.0375, 1e-9);
  EXPECT_NEAR(s.score(), 3.33, 0.005);
  EXPECT_TRUE(s.approved());
}

TEST(BalancedScore, SpareCapacityDeleteIsApproved) {
  // Examples, "Spare Capacity Delete (approved)": an m7i.xlarge with 4 pods deleted outright.
  auto s = score_move(4.84, 4, example_pool);
  EXPECT_NEAR(s.savings_fraction, 0.0833, 0.0001);
  EXPECT_NEAR(s.disruption_fraction, 0.05, 1e-9);
  EXPECT_NEAR(s.score(), 1.67, 0.005);
  EXPECT_TRUE(s.approved());
}

TEST(BalancedScore, MarginalMoveIsRejected) {
  // Examples, "Marginal Move (rejected)": 8 pods moved to save $2.42 (score 0.42 < 0.5).
  auto s = score_move(2.42, 8, example_pool);
  EXPECT_NEAR(s.savings_fraction, 0.0417, 0.0001);
  EXPECT_NEAR(s.disruption_fraction, 0.10, 1e-9);
  EXPECT_NEAR(s.score(), 0.42, 0.005);
  EXPECT_FALSE(s.approved());
}

TEST(BalancedScore, WellPackedNodeWithNoSavingsIsRejectedAtAnyK) {
  // Examples, "Well-Packed Node (rejected)": the only replacement is the same type, saves $0.
  for (int k : {1, 2, 3, 100}) {
    auto s = score_move(0, 10, example_pool, k);
    EXPECT_EQ(s.score(), 0);
    EXPECT_FALSE(s.approved()) << "k=" << k;
  }
  EXPECT_FALSE(score_move(-1.0, 10, example_pool).approved());  // a net loss
}

TEST(BalancedScore, UniformPoolReplaceAtHalfPriceIsExactlyOnTheThreshold) {
  // Examples, "Uniform Pool Replace (approved)": ten m7i.xlarge ($48.40), 8 pods -> m7i.large.
  auto s = score_move(2.42, 8, {48.40, 80});
  EXPECT_NEAR(s.savings_fraction, 0.05, 1e-9);
  EXPECT_NEAR(s.disruption_fraction, 0.10, 1e-9);
  EXPECT_DOUBLE_EQ(s.score(), 0.5);
  EXPECT_TRUE(s.approved());
  // At k=1 the same move cannot pass: 1 - replacement/node price never reaches 1.
  EXPECT_FALSE(score_move(2.42, 8, {48.40, 80}, 1).approved());
}

TEST(BalancedScore, TheScoreDoesNotDependOnPoolSize) {
  // "Scale Invariance": the oversized node in a 100-node pool ($580.80, disruption 800).
  auto s = score_move(7.26, 3, {580.80, 800});
  EXPECT_NEAR(s.savings_fraction, 0.0125, 1e-9);
  EXPECT_NEAR(s.disruption_fraction, 0.00375, 1e-9);
  EXPECT_NEAR(s.score(), score_move(7.26, 3, example_pool).score(), 1e-9);
}

TEST(BalancedScore, ExpensiveToRestartPodsTurnTheSameSavingsIntoARejection) {
  // "Heterogeneous Disruption Cost": same $4.84 delete, pool disruption 107.
  auto a = score_move(4.84, 4, {58.08, 107});  // node A: four default-cost proxies
  EXPECT_NEAR(a.score(), 2.24, 0.02);
  EXPECT_TRUE(a.approved());
  auto b = score_move(4.84, 31, {58.08, 107});  // node B: 1 proxy + 3 model servers of ~10
  EXPECT_NEAR(b.disruption_fraction, 0.29, 0.001);
  EXPECT_NEAR(b.score(), 0.29, 0.005);
  EXPECT_FALSE(b.approved());
}

TEST(BalancedScore, OnDemandAndSpotPoolsScoreTheirOwnShare) {
  // "Cross-NodePool: On-Demand and Spot": each pool normalizes against its own totals.
  auto od = score_move(4.84, 3, {48.40, 80});
  auto spot = score_move(1.45, 3, {14.50, 80});
  EXPECT_NEAR(od.score(), 2.67, 0.005);
  EXPECT_NEAR(spot.score(), 2.67, 0.005);
  auto busy_spot = score_move(1.45, 8, {14.50, 80});  // 8 pods: score 1.0
  EXPECT_NEAR(busy_spot.score(), 1.0, 1e-9);
  EXPECT_TRUE(busy_spot.approved());
  // The design calls 8 pods of cost 2 "the 0.5 boundary"; in binary floating point the
  // fractions come to 0.49999999999999994 and v1.14 (the same arithmetic) rejects the move.
  auto boundary = score_move(1.45, 16, {14.50, 80});
  EXPECT_NEAR(boundary.score(), 0.5, 1e-12);
  EXPECT_FALSE(boundary.approved());
}

TEST(BalancedScore, ASingleNodePoolDeleteScoresExactlyOne) {
  // "Edge Cases", "Single-Node Pool": savings fraction 1, disruption fraction 1.
  auto s = score_move(4.84, 5, {4.84, 5});
  EXPECT_DOUBLE_EQ(s.score(), 1.0);
  EXPECT_TRUE(s.approved());
}

TEST(BalancedScore, AnEmptyNodeDeleteAlwaysPasses) {
  // "Edge Cases", "Empty Nodes": disruption 1 (the node's own) against the whole pool's.
  EXPECT_TRUE(score_move(2.42, per_node_disruption_cost, {58.08, 90}).approved());
}

TEST(BalancedScore, ZeroTotalsRejectTheMove) {
  EXPECT_FALSE(score_move(1, 1, {0, 10}).approved());
  EXPECT_FALSE(score_move(1, 1, {10, 0}).approved());
}

TEST(BalancedScore, TheEventTextIsKarpenters) {
  EXPECT_EQ(score_move(7.26, 3, example_pool).describe(),
            "score 3.33 >= threshold 0.50 (k: 2, savings 12.5%, disruption 3.8%)");
  EXPECT_EQ(score_move(2.42, 8, example_pool).describe(),
            "score 0.42 < threshold 0.50 (k: 2, savings 4.2%, disruption 10.0%)");
}

// In the planner, with the fixture's synthetic prices.

std::string type8() {
  return instance_types::generic_name(8, 2);
}
std::string type4() {
  return instance_types::generic_name(4, 2);
}

// pod-deletion-cost that makes a pod's eviction cost `cost` (1 + deletion cost / 2^27).
std::string deletion_cost_for(int cost) {
  return std::to_string(static_cast<std::int64_t>(cost - 1) * (std::int64_t{1} << 27));
}

// Three 8-vCPU nodes: two full (one 7.5-vCPU pod each, disruption 2 apiece, which no cheaper
// node holds) and "big", whose one 500m pod could move to a 1-vCPU node (an eighth of the
// price). `pod_cost` is that pod's eviction cost.
builder balanced_pool(int pod_cost) {
  builder b;
  b.pool().disruption.consolidation_policy = "Balanced";
  for (const char* full : {"full-1", "full-2"}) {
    b.add_node(full, type8());
    b.add_pod(full, std::string(full) + "-app", 7500, 512);
  }
  b.add_node("big", type8());
  auto& p = b.add_pod("big", "model", 500, 256);
  if (pod_cost != 1)
    p.annotations = {{"controller.kubernetes.io/pod-deletion-cost", deletion_cost_for(pod_cost)}};
  return b;
}

const scored_move* scored_for(const plan& p, const std::string& node) {
  for (const auto& m : p.scored)
    if (std::find(m.nodes.begin(), m.nodes.end(), node) != m.nodes.end()) return &m;
  return nullptr;
}

TEST(BalancedPlanner, PoolTotalsCountEveryManagedNodeNotOnlyCandidates) {
  builder b;
  b.add_node("ready", type4());
  b.add_pod("ready", "web", 500, 256);
  b.add_node("joining", type4(), 1min);
  b.claim("joining").conditions.pop_back();  // not Initialized: no candidate
  b.add_pod("joining", "early", 500, 256);
  auto cs = find_candidates(b.c);
  ASSERT_EQ(cs.all.size(), 1u);
  const double price = b.type(type4()).offerings.front().price;
  EXPECT_DOUBLE_EQ(cs.totals.at("default").cost, 2 * price);
  EXPECT_DOUBLE_EQ(cs.totals.at("default").disruption_cost, 4.0);  // (1 + 1) per node
}

TEST(BalancedPlanner, ACheapReplaceOfCheapPodsIsMadeAndCountedWithItsScore) {
  auto b = balanced_pool(1);
  auto p = plan_disruption(b.c);
  ASSERT_EQ(p.method, "single-node");
  ASSERT_EQ(p.commands.size(), 1u);
  EXPECT_EQ(p.commands[0].nodes, std::vector<std::string>{"big"});
  const auto* m = scored_for(p, "big");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->approved);
  EXPECT_EQ(m->nodepool, "default");
  EXPECT_EQ(m->policy, "Balanced");
  EXPECT_EQ(m->consolidation_type, "single");
  ASSERT_TRUE(m->score.has_value());
  // savings (8-vCPU price - 1-vCPU price) / 3 prices, against disruption 2 of 2 + 2 + 2 = 6.
  const double p8 = b.type(type8()).offerings.front().price;
  const double p1 = b.type(instance_types::generic_name(1, 2)).offerings.front().price;
  EXPECT_NEAR(m->score->score(), ((p8 - p1) / (3 * p8)) / (2.0 / 6.0), 1e-9);
}

TEST(BalancedPlanner, AReplaceOfAnExpensiveToRestartPodIsRejectedAndCounted) {
  // "big"'s pod costs 6 to restart (disruption 7 of 11): deleting it would still pass
  // ((1/3)/(7/11) = 0.52), the replace, saving 7/8 of that, does not (0.46).
  auto b = balanced_pool(6);
  auto p = plan_disruption(b.c);
  EXPECT_TRUE(p.commands.empty()) << p.commands[0].decision;
  const auto* m = scored_for(p, "big");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(m->approved);
  ASSERT_TRUE(m->score.has_value());
  EXPECT_LT(m->score->score(), 0.5);
  EXPECT_GT(m->score->score(), 0.4);
  bool reason = false;
  for (const auto& n : p.not_disrupted)
    reason = reason || (n.node == "big" &&
                        n.reason.find("the Balanced policy of NodePool default rejects the move "
                                      "(score 0.46 < threshold 0.50") != std::string::npos);
  EXPECT_TRUE(reason);
  // The same cluster under WhenEmptyOrUnderutilized makes the move, counted without a score.
  b.pool().disruption.consolidation_policy = "WhenEmptyOrUnderutilized";
  auto q = plan_disruption(b.c);
  ASSERT_EQ(q.commands.size(), 1u);
  const auto* u = scored_for(q, "big");
  ASSERT_NE(u, nullptr);
  EXPECT_TRUE(u->approved);
  EXPECT_FALSE(u->score.has_value());
}

TEST(BalancedPlanner, ANodeWhoseDeleteCannotPassIsNotSimulated) {
  // A pod of cost 10: disruption 11 of 15; even deleting "big" scores (1/3)/(11/15) = 0.45.
  auto b = balanced_pool(10);
  auto p = plan_disruption(b.c);
  EXPECT_TRUE(p.commands.empty());
  EXPECT_EQ(scored_for(p, "big"), nullptr);
  bool reason = false;
  for (const auto& n : p.not_disrupted)
    reason = reason || (n.node == "big" &&
                        n.reason.find("even deleting it fails the Balanced policy of NodePool "
                                      "default (score 0.45 < threshold 0.50") != std::string::npos);
  EXPECT_TRUE(reason);
}

}  // namespace
}  // namespace kp::disruption
