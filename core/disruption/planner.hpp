#pragma once
// The disruption planner (karpenter-core.md 5): one pass over a cluster snapshot gives the
// commands Karpenter's disruption controller would start, in its order (emptiness, drift,
// multi-node consolidation, single-node consolidation; the first method that acts wins), plus
// forceful expirations, hash re-stamps and the reason each other node stays.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/disruption/balanced.hpp"
#include "core/disruption/candidates.hpp"
#include "core/disruption/cluster.hpp"
#include "core/scheduling/provision.hpp"

namespace kp::disruption {

enum class command_reason { empty, drifted, underutilized, expired };
std::string_view to_string(command_reason r);

struct command {
  command_reason why = command_reason::empty;
  std::vector<std::string> nodes;       // candidate node names
  std::vector<std::string> nodeclaims;  // their NodeClaims
  // Replacement NodeClaims; instance_types index cluster.state.instance_types, cheapest first,
  // already restricted to types strictly cheaper (worst-case offering) than the candidates.
  std::vector<scheduling::planned_nodeclaim> replacements;
  double savings = 0;    // sum of candidate prices minus the replacement's cheapest price
  std::string decision;  // one line for a person
};

// kproximate's conservative scale-down (kproximate.md 5), expressed on the same planner; see
// README.md for the mapping.
struct conservative_settings {
  std::chrono::seconds stabilization{300};  // no scale-down while any node is younger
  std::chrono::seconds min_node_age{600};   // a node younger than this is never removed
  double load_headroom = 0.2;               // requests x (1 + h) must stay below allocatable
};

struct planner_options {
  scheduling::options scheduling;
  std::size_t multi_node_max = 100;  // batch cap of multi-node consolidation (< 1 disables it)
  std::size_t empty_max = 1000000;   // empty nodes deleted per pass (budgets still apply)
  // Single-node consolidation simulates at most this many candidates per pass (Karpenter stops
  // after 3 minutes instead; a count keeps the pass deterministic), starting at
  // `single_node_start` (mod the candidate count) so that a caller advancing it by
  // plan::single_node_evaluated reaches every node over successive passes.
  std::size_t single_node_max_simulations = 100;
  std::size_t single_node_start = 0;
  // StaticCapacity: drifted nodes of static NodePools are replaced one-for-one; when off they
  // stay (the pools are not managed).
  bool static_capacity = true;
  int balanced_k = disruption::balanced_k;  // Balanced approves a move when score >= 1/k
  std::optional<conservative_settings> conservative;
};

// One consolidation move as Karpenter's balanced evaluator counts it
// (karpenter_consolidation_moves_total and, for Balanced pools, karpenter_consolidation_score):
// every single-node move that reached scoring, and for multi-node the chosen move (or, when
// none was found, the last one Balanced rejected), once per source NodePool.
struct scored_move {
  std::string nodepool;
  std::string policy;               // the pool's consolidationPolicy
  bool approved = true;             // "approved" or "rejected"
  std::optional<move_score> score;  // Balanced pools only
  std::string consolidation_type;   // "single" or "multi"
  std::vector<std::string> nodes;
};

struct plan {
  std::string method;                // "emptiness", "drift", "multi-node", "single-node" or ""
  std::vector<command> commands;     // of that method (Karpenter starts them together)
  std::vector<command> expirations;  // forceful: not gated by budgets or do-not-disrupt
  std::vector<restamp> restamps;
  std::vector<blocked_node> not_disrupted;
  std::vector<annotation_warning> warnings;  // do-not-disrupt values Karpenter ignores
  std::vector<scored_move> scored;
  std::size_t simulations = 0;            // provision() runs this pass
  std::size_t single_node_evaluated = 0;  // single-node candidates looked at this pass
};

plan plan_disruption(const cluster& c, const planner_options& opts = {});
// The same with the candidates already found on `c` (find_candidates(c)), for a caller that
// reads them too: a large cluster's candidates take one walk over every pod.
plan plan_disruption(const cluster& c, const candidate_set& cs, const planner_options& opts);

// Karpenter's validation after the 15 s delay (5.8), against a newer snapshot: the command
// with the nodes that still qualify (emptiness keeps survivors), or an error whose message says
// why it was rejected (budget, scheduling or churn).
result<command> validate(const command& cmd, const cluster& newer,
                         const planner_options& opts = {});

}  // namespace kp::disruption
