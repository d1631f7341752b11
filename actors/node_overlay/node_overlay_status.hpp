#pragma once
// The NodeOverlay status actor (protocol::node_overlay_status_actor), spawned only with the
// NodeOverlay feature gate: on each snapshot whose overlays or node classes changed it judges
// every overlay against the instance types (core/node_overlay), writes the ValidationSucceeded
// and Ready conditions that differ from what the overlay shows, and, when an overlay turns
// invalid or conflicting, logs a warning and emits a Warning Event under the condition's reason.
#include <functional>
#include <string>

#include <caf/fwd.hpp>

#include "actors/controller_context.hpp"
#include "protocol/controller_messages.hpp"

namespace kp::actors::node_overlay {

struct node_overlay_status_options {
  // Called inside the actor each time it sends a status write for an overlay; for tests.
  std::function<void(const std::string& overlay)> on_write;
};

protocol::node_overlay_status_actor spawn_node_overlay_status(
    caf::actor_system& system, const controller_context& ctx,
    node_overlay_status_options options = {});

}  // namespace kp::actors::node_overlay
