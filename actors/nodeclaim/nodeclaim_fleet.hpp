#pragma once
// The NodeClaim fleet: one nodeclaim actor per NodeClaim of this provider (nodeClassRef group
// karpenter.proxmox.sinextra.dev) in the latest snapshot; forwards every snapshot to each and
// stops the actors whose claim is gone. Subscribe it to cluster_state.
#include <caf/fwd.hpp>

#include "actors/controller_context.hpp"
#include "protocol/controller_messages.hpp"

namespace kp::actors::nodeclaim {

protocol::nodeclaim_fleet_actor spawn_nodeclaim_fleet(caf::actor_system& system,
                                                      const controller_context& ctx);

}  // namespace kp::actors::nodeclaim

namespace kp::actors {
using nodeclaim::spawn_nodeclaim_fleet;
}  // namespace kp::actors
