#pragma once
// cluster_state: receives every informer's deltas, applies them copy-on-write per kind (only the
// kinds that changed get a new map) and publishes an immutable snapshot to every subscriber at
// most once per publish interval, coalescing whatever arrived in between. Nothing is published
// before every kind has been listed once (synced). Subscribers are monitored; dead ones are
// dropped. Exports karpenter_cluster_state_synced, karpenter_cluster_state_node_count,
// karpenter_pods_state (one series per live pod) and its pending-delta depth as
// karpenter_proxmox_actor_queue_depth{sender="informers",receiver="cluster_state"}.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include <caf/fwd.hpp>

#include "protocol/controller_messages.hpp"

namespace kp::obs {
struct karpenter_metrics;
}

namespace kp::actors::cluster_state {

struct cluster_state_options {
  // A burst of deltas becomes one snapshot per interval; the first delta after a quiet
  // interval is published at once (after whatever is already in the mailbox).
  std::chrono::milliseconds publish_interval{50};
  // When above publish_interval, the interval stretches to 8 times what the last publication
  // cost (map copies included), up to this: a cluster of 100,000 pods under churn then spends at
  // most about an eighth of a core on snapshots. 0 keeps publish_interval (tests).
  std::chrono::milliseconds max_publish_interval{0};
  // Unix milliseconds for cluster_snapshot::taken_unix_ms; the system clock when empty.
  // (Publication timing uses the actor clock, so test_coordinator drives it.)
  std::function<std::int64_t()> wall_clock_ms;
  // CapacityBuffer gate: CapacityBuffers and PodTemplates are watched, so the first snapshot
  // waits for their lists too. Off, both kinds stay empty.
  bool capacity_buffers = false;
  // NodeOverlays are watched (FEATURE_GATES NodeOverlay): wait for their informer to sync.
  bool watch_node_overlays = false;
};

// Asked through cluster_state_probe (actor_cast the handle): how many live subscribers it has.
using subscribers_atom = caf::atom_constant<caf::atom("subscrbrs")>;
using cluster_state_probe = caf::typed_actor<caf::replies_to<subscribers_atom>::with<std::size_t>>;

// `metrics` may be null (tests).
protocol::cluster_state_actor spawn_cluster_state(caf::actor_system& system,
                                                  std::shared_ptr<obs::karpenter_metrics> metrics,
                                                  cluster_state_options options = {});

}  // namespace kp::actors::cluster_state
