#pragma once
// Static NodePools (spec.replicas, Karpenter's StaticCapacity): how many NodeClaims each one must
// create or remove to hold exactly `replicas`, within limits.nodes, and the NodeClaim a static
// pool stamps out (its template with every compatible instance type, no pods). Pure.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/scheduling/provision.hpp"

namespace kp::scheduling {

struct static_pool_count {
  std::int64_t running = 0;             // not deleting, not being replaced
  std::int64_t pending_disruption = 0;  // its node carries karpenter.sh/disrupted
  std::int64_t deleting = 0;            // terminating, still there
  std::int64_t total() const { return running + pending_disruption + deleting; }
};

struct static_pool_plan {
  std::string nodepool;
  std::int64_t replicas = 0;
  static_pool_count count;
  std::int64_t create = 0;
  // NodeClaims to delete (surplus), in Karpenter's order: never launched first, then empty
  // nodes, then the cheapest to disrupt; pods with do-not-disrupt last.
  std::vector<std::string> remove;
  // Set when limits.nodes held creation back (what it wanted, and the limit).
  std::optional<std::int64_t> node_limit;
  std::int64_t held_back = 0;
};

// NodeClaims of pool `name`, counted as Karpenter's static controllers count them. `nodeclaims`
// includes in-flight ones; `nodes` and `bound_pods` tell which are being disrupted or empty.
static_pool_count count_static_pool(const snapshot& snap, const std::string& name);

// A plan for every ready, non-deleting static NodePool of `snap` that is not already holding its
// replicas. Scale-up never goes past limits.nodes (deleting NodeClaims count against it);
// scale-down counts running NodeClaims only, so a drift replacement in progress is not surplus.
std::vector<static_pool_plan> plan_static_capacity(const snapshot& snap);

// Room limits.nodes leaves pool `np` for new NodeClaims, counting every NodeClaim of the pool
// in `snap` (deleting and in-flight ones too); nullopt when the pool has no node limit.
std::optional<std::int64_t> node_limit_room(const snapshot& snap, const model::nodepool& np);

// The NodeClaim pool `name` stamps out with no pod: its requirements, taints and labels, and
// every compatible instance type that holds the DaemonSet overhead, cheapest first (indices into
// snap.instance_types). Nullopt with `why` when no instance type fits.
std::optional<planned_nodeclaim> static_nodeclaim(const snapshot& snap, const std::string& name,
                                                  const options& opts, std::string& why);

}  // namespace kp::scheduling
