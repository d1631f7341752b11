#pragma once
// batcher: turns a stream of pods_pending into scheduling rounds (karpenter-core.md 3.1). The
// first new UID opens a window; each UID new to the window restarts the idle timer
// (BATCH_IDLE_DURATION, 1 s); a UID already in the window changes nothing; the window closes
// when the idle timer or the max timer (BATCH_MAX_DURATION, 10 s, from the opening) fires, and
// the provisioner gets batch_closed. Timers run on the actor clock, so test_coordinator drives
// them; stale timers are recognised by a generation number and ignored.
#include <caf/fwd.hpp>

#include "actors/controller_context.hpp"

namespace kp::actors::provisioning {

protocol::batcher_actor spawn_batcher(caf::actor_system& system, const controller_context& ctx,
                                      protocol::provisioner_actor provisioner);

}  // namespace kp::actors::provisioning

namespace kp::actors {
using provisioning::spawn_batcher;
}
