#pragma once
// The disruption actor (karpenter-core.md 5): keeps the newest cluster snapshot and, every
// `period` while the cluster is synced and no command is in flight, plans with core/disruption
// (emptiness, drift, multi-node and single-node consolidation; budgets, do-not-disrupt, PDBs,
// consolidateAfter; expiration; node repair behind the NodeRepair gate). A graceful command is
// re-validated on the newest snapshot after `validation_delay`, then executed: candidates
// tainted karpenter.sh/disrupted:NoSchedule and marked DisruptionReason, replacements created
// and awaited until Initialized (or the taints undone on timeout), candidates' NodeClaims
// deleted (the termination actor drains them). Events and metrics for every decision.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>

#include <caf/fwd.hpp>

#include "actors/controller_context.hpp"
#include "actors/disruption/cluster_writes.hpp"
#include "core/disruption/planner.hpp"
#include "protocol/controller_messages.hpp"

namespace kp::actors::disruption {

struct disruption_options {
  std::chrono::milliseconds period{std::chrono::seconds(10)};
  std::chrono::milliseconds validation_delay{std::chrono::seconds(15)};
  // How long replacements may take to be Initialized before the command is given up.
  std::chrono::milliseconds replacement_timeout{std::chrono::minutes(10)};
  // Node repair: how long Ready may be False/Unknown (with the NodeRepair gate on).
  std::chrono::seconds repair_toleration{std::chrono::minutes(30)};
  // kproximate's conservative scale-down (docs/disruption.md); nullopt = Karpenter's behaviour.
  std::optional<kp::disruption::conservative_settings> conservative;
  kp::disruption::planner_options planner;  // the base options
  std::uint64_t seed = 0;                   // replacement names; 0 = random
};

// Spawns the actor. `writes` defaults to the Kubernetes client of `ctx`. Wiring: subscribe the
// returned handle to ctx.cluster_state (subscribe_atom); it needs ctx.kube, ctx.instance_types,
// ctx.settings.gates.node_repair, and optionally ctx.metrics and ctx.events.
protocol::disruption_actor spawn_disruption(caf::actor_system& system,
                                            const controller_context& ctx,
                                            disruption_options options = {},
                                            std::shared_ptr<cluster_writes> writes = nullptr);

}  // namespace kp::actors::disruption
