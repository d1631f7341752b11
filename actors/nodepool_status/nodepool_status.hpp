#pragma once
// The NodePool status actor (protocol::nodepool_status_actor): on each snapshot it computes, for
// every NodePool that references a ProxmoxNodeClass, status.resources and status.nodes, the
// NodeClassReady / ValidationSucceeded / Ready conditions and the nodepool hash annotations,
// and writes only what differs from what the pool shows. It also keeps the
// karpenter_nodepools_usage and karpenter_nodepools_limit gauges.
#include <functional>
#include <string>

#include <caf/fwd.hpp>

#include "actors/controller_context.hpp"
#include "protocol/controller_messages.hpp"

namespace kp::actors::nodepool_status {

struct nodepool_status_options {
  // Called inside the actor each time it sends a write ("status" or "hash") for a pool; for
  // tests and debugging.
  std::function<void(const std::string& pool, const std::string& what)> on_write;
};

protocol::nodepool_status_actor spawn_nodepool_status(caf::actor_system& system,
                                                      const controller_context& ctx,
                                                      nodepool_status_options options = {});

}  // namespace kp::actors::nodepool_status
