#pragma once
// The Balanced consolidation policy's score (designs/balanced-consolidation.md, Karpenter
// v1.14 pkg/controllers/disruption/balanced.go): a move's savings and disruption as fractions of
// its source NodePool's totals; approved when savings fraction / disruption fraction >= 1/k.
#include <cstdint>
#include <string>

namespace kp::disruption {

// Karpenter's fixed k of `consolidationPolicy: Balanced` (v1.BalancedK).
inline constexpr int balanced_k = 2;
// A node's own disruption cost, before its pods' (PerNodeBaseDisruptionCost).
inline constexpr double per_node_disruption_cost = 1.0;

// Sums over every node of a NodePool, candidates or not.
struct pool_totals {
  double cost = 0;             // offering prices
  double disruption_cost = 0;  // per node: 1 + sum of max(0, eviction cost) of its pods
};

struct move_score {
  double savings_fraction = 0;
  double disruption_fraction = 0;
  int k = balanced_k;

  // 0 for no savings, +inf for no disruption (cannot happen: a node costs 1).
  double score() const;
  double threshold() const { return 1.0 / k; }
  bool approved() const { return score() >= threshold(); }
  // "score 3.33 >= threshold 0.50 (k: 2, savings 12.5%, disruption 3.8%)", the Event's text.
  std::string describe() const;
};

// Zero totals leave nothing to normalize against: the move scores 0 and is rejected.
move_score score_move(double savings, double disruption_cost, const pool_totals& totals,
                      int k = balanced_k);

}  // namespace kp::disruption
