#pragma once
// The readiness actor: the one place that knows which dependencies are ready. Other actors send
// it readiness_report messages; it publishes them to the health state that /readyz reads and
// logs each change of a component's state once.
#include <memory>

#include <caf/actor_system.hpp>

#include "observability/health_state.hpp"
#include "observability/karpenter_metrics.hpp"
#include "protocol/messages.hpp"

namespace kp::actors {

// Spawns it and registers it under protocol::readiness_atom in the actor registry.
// `metrics` (optional) counts failures at its boundary.
protocol::readiness_actor spawn_readiness(caf::actor_system& system,
                                          std::shared_ptr<obs::health_state> health,
                                          std::shared_ptr<obs::karpenter_metrics> metrics = {});

// Sends a report to whichever readiness actor is registered now (none: dropped).
void report_readiness(caf::actor_system& system, protocol::readiness_report report);

}  // namespace kp::actors
