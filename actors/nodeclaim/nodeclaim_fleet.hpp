#pragma once
// The NodeClaim fleet: one nodeclaim actor per NodeClaim of this provider (nodeClassRef group
// karpenter.proxmox.sinextra.dev) in the latest snapshot; forwards every snapshot to each and
// stops the actors whose claim is gone. Subscribe it to cluster_state.
//
// It also supervises them: an actor that stops on its own (an exception reached its boundary, or
// it exited abnormally) is started again after a backoff on the actor clock (restart_policy:
// doubling up to the maximum, back to the shortest once it ran healthy for longer than that),
// with an error log line, a Warning Event "LifecycleRestarted" on the NodeClaim and
// karpenter_proxmox_actor_restarts_total{actor="nodeclaim"}. The new actor gets the latest
// snapshot and resumes from the claim's status and the VM's state (the region joins a launch
// still running for the claim, or resumes one that was cut off), so nothing is launched twice.
#include <functional>
#include <string>

#include <caf/fwd.hpp>

#include "actors/controller_context.hpp"
#include "actors/restart_schedule.hpp"
#include "protocol/controller_messages.hpp"

namespace kp::actors::nodeclaim {

// Starts the actor of one NodeClaim; called again on every restart (spawn_nodeclaim_actor in
// the controller; a harness may wrap it to watch or stop the actors it starts). Every actor
// gets the fleet's one shared context.
using claim_actor_spawner = std::function<protocol::nodeclaim_actor(
    caf::actor_system&, const shared_context&, const std::string& name)>;

// The restart backoff of NodeClaim actors in the controller.
inline constexpr restart_policy claim_restart_policy{std::chrono::seconds(1),
                                                     std::chrono::seconds(60)};

protocol::nodeclaim_fleet_actor spawn_nodeclaim_fleet(caf::actor_system& system,
                                                      const controller_context& ctx);
protocol::nodeclaim_fleet_actor spawn_nodeclaim_fleet(caf::actor_system& system,
                                                      const controller_context& ctx,
                                                      claim_actor_spawner spawner,
                                                      restart_policy policy = claim_restart_policy);

}  // namespace kp::actors::nodeclaim

namespace kp::actors {
using nodeclaim::spawn_nodeclaim_fleet;
}  // namespace kp::actors
