#pragma once
// The garbage collector: every GARBAGE_COLLECTION_INTERVAL (actor clock) and on collect_atom it
// asks every region for the VMs this cluster owns and removes what garbage.hpp calls garbage:
// orphan VMs (vm_delete_atom on their region), NodeClaims whose VM is gone (deleted, reason
// garbage_collected) and stale bootstrap token Secrets. One pass at a time; a request during a
// pass runs another right after it.
#include <caf/fwd.hpp>

#include "actors/controller_context.hpp"
#include "protocol/controller_messages.hpp"

namespace kp::actors {

// Needs ctx.kube, ctx.regions and ctx.settings (garbage_collection_interval,
// orphan_vm_grace_period); ctx.metrics and ctx.events are optional. Subscribe the returned
// handle to cluster_state (it decides nothing from absence until a synced snapshot arrives).
protocol::garbage_collector_actor spawn_garbage_collector(caf::actor_system& system,
                                                          const controller_context& ctx);

}  // namespace kp::actors
