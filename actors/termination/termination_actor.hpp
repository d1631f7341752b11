#pragma once
// The termination actor: finishes every NodeClaim being deleted (deletionTimestamp and the
// karpenter.sh/termination finalizer) the way Karpenter's finalizers do (karpenter-core.md 4.1
// step 6 and 4.2): taint the Node karpenter.sh/disrupted:NoSchedule, drain it through the
// Eviction API tier by tier (PodDisruptionBudgets and do-not-disrupt respected until the
// NodeClaim's terminationGracePeriod runs out), wait for its VolumeAttachments, delete the VM
// through the region actor, delete the Node and remove both finalizers. A Node of ours deleted
// first gets its NodeClaim deleted. Level-triggered on cluster snapshots: each snapshot (and a
// one-second tick while work remains) re-derives what is left to do.
#include <caf/fwd.hpp>

#include "actors/controller_context.hpp"
#include "protocol/controller_messages.hpp"

namespace kp::actors {

// Needs ctx.kube, ctx.regions (by the region names in providerIDs) and ctx.settings
// (min_drain_duration, drain_timeout); ctx.metrics and ctx.events are optional. Subscribe the
// returned handle to cluster_state.
protocol::termination_actor spawn_termination(caf::actor_system& system,
                                              const controller_context& ctx);

}  // namespace kp::actors
