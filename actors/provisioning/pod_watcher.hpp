#pragma once
// pod_watcher: reads every published snapshot, finds the provisionable pods (provisionable.hpp)
// and tells the batcher their UIDs. A pod is reported when it first becomes provisionable and
// again every `retrigger` while it stays so (Karpenter's pod trigger requeues every 10 s), so
// an unschedulable pod is retried without a new batch on every snapshot. Sets
// karpenter_scheduler_queue_depth{controller="provisioner"} to the number of such pods.
#include <chrono>

#include <caf/fwd.hpp>

#include "actors/controller_context.hpp"

namespace kp::actors::provisioning {

inline constexpr std::chrono::seconds default_retrigger{10};

// Subscribe the returned handle to ctx.cluster_state (subscribe_atom).
protocol::pod_watcher_actor spawn_pod_watcher(
    caf::actor_system& system, const controller_context& ctx, protocol::batcher_actor batcher,
    std::chrono::milliseconds retrigger = default_retrigger);

}  // namespace kp::actors::provisioning

namespace kp::actors {
using provisioning::spawn_pod_watcher;
}
