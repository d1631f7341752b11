#pragma once
// provisioner: keeps the latest snapshot; on batch_closed runs the scheduling simulation
// (core/scheduling/provision.hpp) over the provisionable pods and creates one NodeClaim per
// planned claim through the Kubernetes client (karpenter-core.md 3.1, 3.7, 3.8). NodeClaims it
// created are remembered until the informer shows them, and the pods planned onto a NodeClaim
// stay counted on it until it is initialized (or gone), so two batches closing close together
// never create twice for the same pods. Events: Nominated per placed pod, FailedScheduling
// (Warning) per pod that fits nowhere. Metrics: karpenter_nodeclaims_created_total,
// karpenter_scheduler_scheduling_duration_seconds{controller="provisioner"},
// karpenter_scheduler_unschedulable_pods_count{controller="provisioner"}.
#include <cstdint>
#include <functional>

#include <caf/fwd.hpp>

#include "actors/controller_context.hpp"

namespace kp::actors::provisioning {

// What one scheduling round did (for logs, tests and benchmarks).
struct batch_report {
  std::uint64_t batch = 0;
  std::size_t pending_pods = 0;   // pods given to the scheduler
  std::size_t nodeclaims = 0;     // creates sent
  std::size_t bindings = 0;       // pods placed on existing or in-flight capacity
  std::size_t unschedulable = 0;  // FailedScheduling events sent
  double solve_seconds = 0;       // the simulation alone
  double total_seconds = 0;       // batch_closed handled -> last create sent
};

struct provisioner_options {
  // Called inside the actor after each round; must be quick and thread-safe for the caller.
  std::function<void(const batch_report&)> on_batch;
};

// Subscribe the returned handle to ctx.cluster_state; give it to spawn_batcher.
protocol::provisioner_actor spawn_provisioner(caf::actor_system& system,
                                              const controller_context& ctx,
                                              provisioner_options options = {});

}  // namespace kp::actors::provisioning

namespace kp::actors {
using provisioning::spawn_provisioner;
}
