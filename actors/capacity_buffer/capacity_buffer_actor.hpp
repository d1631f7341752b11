#pragma once
// The capacity buffer actor (CapacityBuffer gate, Karpenter v1.14's buffer controller and the
// provisioner's buffer status). On snapshots (at most once per evaluation interval) it:
// - resolves every CapacityBuffer with core/capacity_buffer: the PodTemplate it names (from the
//   snapshot), or the pod template and /scale replicas of the Deployment, ReplicaSet or
//   StatefulSet its scalableRef names (read through the API, again every refresh interval);
// - checks which virtual pods fit on registered nodes now (the scheduling simulation without
//   NodePools), which is what the Provisioning condition reports;
// - writes status.replicas, podTemplateRef, podTemplateGeneration, provisioningStrategy and the
//   ReadyForProvisioning and Provisioning conditions when they differ, and records an Event and
//   a log line when a buffer's ReadyForProvisioning verdict changes;
// - sends the virtual pods (protocol::buffer_pods) to every listener.
// Virtual pods never get Events or status writes of their own.
#include <chrono>
#include <vector>

#include <caf/fwd.hpp>

#include "actors/controller_context.hpp"
#include "protocol/capacity_buffer_messages.hpp"

namespace kp::actors::capacity_buffer {

struct capacity_buffer_options {
  std::chrono::milliseconds evaluation_interval{std::chrono::seconds(1)};
  // Karpenter's buffer controller requeues every 30 s; scalable objects are read again as often.
  std::chrono::milliseconds refresh_interval{std::chrono::seconds(30)};
  std::vector<protocol::buffer_pods_listener> listeners;
};

// Subscribe the returned handle to ctx.cluster_state.
protocol::snapshot_listener spawn_capacity_buffer(caf::actor_system& system,
                                                  const controller_context& ctx,
                                                  capacity_buffer_options options);

}  // namespace kp::actors::capacity_buffer
