#pragma once
// Disruption candidates (karpenter-core.md 5.2): the managed, initialized nodes that may be
// disrupted now, and for every other managed node the reason a person reads in the event
// "not disrupted because ...".
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/disruption/balanced.hpp"
#include "core/disruption/budget.hpp"
#include "core/disruption/cluster.hpp"

namespace kp::disruption {

struct candidate {
  std::size_t node = 0;       // index into cluster.state.nodes
  std::size_t nodeclaim = 0;  // index into cluster.state.nodeclaims
  std::string name;           // node name
  std::string nodepool;
  std::string instance_type;
  std::string zone;
  std::string capacity_type;
  double price = 0;  // of the offering matching the node's zone and capacity type; 0 if unknown
  std::vector<std::size_t> pods;  // reschedulable pods, indices into cluster.state.bound_pods
  double reschedule_cost = 1;     // 1 + sum of positive eviction costs of reschedulable pods
  bool empty = true;
  bool consolidatable = false;  // consolidateAfter elapsed (and not Never)
  bool expired = false;
  std::string drift;    // "" or NodePoolDrifted / NodeClassDrifted / ImageDrifted
  std::string blocked;  // why pods block a graceful disruption ("" = not blocked)
  std::int64_t created_unix_ms = 0;
};

struct blocked_node {
  std::string node;
  std::string reason;
  friend bool operator==(const blocked_node&, const blocked_node&) = default;
};

// A NodeClaim whose hash version differs from its pool's: the hashes are re-stamped, never
// treated as drift (karpenter-core.md 1.6).
struct restamp {
  std::string nodeclaim;
  std::map<std::string, std::string> annotations;  // to set
};

struct pool_state {
  int total = 0;       // managed, initialized, not terminating nodes
  int disrupting = 0;  // NotReady, terminating or tainted karpenter.sh/disrupted
  std::vector<budget> budgets;
  int allowed(reason r, std::chrono::sys_seconds now) const {
    return allowed_disruptions(budgets, r, total, disrupting, now);
  }
};

// A karpenter.sh/do-not-disrupt value Karpenter ignores, to be told to the object's owner
// (Event InvalidDoNotDisruptAnnotation on a pod).
struct annotation_warning {
  std::string kind;  // "Pod" or "Node"
  std::string namespace_;
  std::string name;
  std::string message;
  friend bool operator==(const annotation_warning&, const annotation_warning&) = default;
};

struct candidate_set {
  // Every managed, initialized node not already being disrupted. `blocked` on a candidate
  // keeps it out of graceful methods; expiration still applies.
  std::vector<candidate> all;
  std::vector<blocked_node> not_disrupted;  // with reasons (including blocked candidates)
  std::vector<restamp> restamps;
  std::vector<annotation_warning> warnings;
  std::map<std::string, pool_state, std::less<>> pools;
  // Balanced's denominators: every managed node of the pool, candidate or not.
  std::map<std::string, pool_totals, std::less<>> totals;
  std::map<std::string, std::vector<std::size_t>, std::less<>> pods_by_node;  // bound_pods
};

candidate_set find_candidates(const cluster& c);

// clamp(1 + deletion-cost/2^27 + priority/2^25, -10, 10)
double eviction_cost(const model::pod& p);

}  // namespace kp::disruption
