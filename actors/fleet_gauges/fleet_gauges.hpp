#pragma once
// The fleet gauges actor: from every snapshot it sets karpenter_proxmox_nodeclaims{nodepool,
// phase} (every phase of every NodePool, zeros included), primes each NodePool's counters the
// first time it sees the pool, and observes each lifecycle step a claim finishes after this actor
// started (once per claim and step). Every refresh period it asks each region for its inventory
// and sets the hosts' online, free CPU and free memory gauges, and free CPU and memory per host
// NUMA node; a region that does not answer keeps its last figures, a host (or NUMA node) gone
// from an answer loses its series.
#include <chrono>

#include <caf/fwd.hpp>

#include "actors/controller_context.hpp"
#include "protocol/controller_messages.hpp"

namespace kp::actors::fleet_gauges {

struct fleet_gauges_options {
  std::chrono::milliseconds refresh{std::chrono::seconds(10)};
  std::chrono::milliseconds inventory_timeout{std::chrono::seconds(4)};
};

protocol::snapshot_listener spawn_fleet_gauges(caf::actor_system& system,
                                               const controller_context& ctx,
                                               fleet_gauges_options options = {});

}  // namespace kp::actors::fleet_gauges
