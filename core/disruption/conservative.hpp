#pragma once
// kproximate's conservative scale-down (kproximate.md 5.2) on Karpenter's planner: the
// stabilization window, the minimum node age and the load headroom become gates on the
// emptiness and consolidation methods. The mapping is described in README.md.
#include <cstdint>
#include <string>
#include <vector>

#include "core/disruption/candidates.hpp"
#include "core/disruption/planner.hpp"

namespace kp::disruption {

// Planner options that behave as kproximate: its gates on, one node removed per pass
// (kproximate publishes one scale-down event per poll), no multi-node merges.
planner_options conservative_mode(const conservative_settings& s, planner_options base = {});

// Cluster-wide CPU and memory (milli-units) over Ready nodes, as kproximate sums them.
struct headroom_state {
  std::int64_t allocatable_cpu_milli = 0;
  std::int64_t allocatable_memory_milli = 0;
  std::int64_t requested_cpu_milli = 0;
  std::int64_t requested_memory_milli = 0;
  // Free room (allocatable - requests, at least 0) over schedulable Ready nodes, and per node
  // (by index into cluster.state.nodes): a quick bound for consolidation.
  std::int64_t free_cpu_milli = 0;
  std::int64_t free_memory_milli = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> node_free;
  std::vector<std::pair<std::int64_t, std::int64_t>> node_allocatable;
};

headroom_state measure_headroom(const cluster& c, const candidate_set& cs);
std::pair<std::int64_t, std::int64_t> node_free(const headroom_state& h, std::size_t node);

// kproximate's resource test after the batch goes (and the replacement, if any, comes):
// requests x (1 + headroom) < allocatable, for CPU and for memory (nothing requested passes).
bool headroom_allows(const headroom_state& h, const cluster& c, const candidate_set& cs,
                     const std::vector<std::size_t>& batch, const command& cmd,
                     const conservative_settings& s, std::string& why);
void remove_from_headroom(headroom_state& h, const cluster& c, const candidate_set& cs,
                          std::size_t candidate);

// "" or why no scale-down happens now: a managed node younger than the stabilization window.
std::string stabilization_block(const cluster& c, const candidate_set& cs,
                                const conservative_settings& s);
// "" or why this candidate is too young to remove.
std::string min_age_block(const cluster& c, const candidate& k, const conservative_settings& s);

}  // namespace kp::disruption
