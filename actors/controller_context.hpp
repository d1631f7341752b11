#pragma once
// What every controller actor is given at spawn: the Kubernetes client, the metrics, where to
// send Events, the cluster_state to subscribe to, the region actors by region name, the
// settings and the identity resolved at start. Plain values and handles: the actors share
// nothing mutable through it (the kube client and the metric families are thread-safe).
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/send.hpp>

#include "actors/shared_instance_types.hpp"
#include "config/settings.hpp"
#include "observability/karpenter_metrics.hpp"
#include "protocol/controller_messages.hpp"
#include "protocol/kube/client.hpp"
#include "protocol/region_messages.hpp"

namespace kp::actors {

struct controller_context {
  std::shared_ptr<kube::client> kube;
  std::shared_ptr<obs::karpenter_metrics> metrics;  // may be null in tests
  protocol::event_recorder_actor events;            // may be invalid in tests
  protocol::cluster_state_actor cluster_state;
  std::map<std::string, protocol::region_actor> regions;  // by region name (clusters file)
  config::settings settings;
  std::string cluster_name;        // CLUSTER_NAME, resolved (kube-system UID by default)
  std::string cluster_endpoint;    // API server address the VMs join through
  std::string cluster_ca_pem;      // the cluster CA the VMs trust
  std::string kubernetes_version;  // "v1.32.0", from /version
  // Instance types for every NodePool (builtin or INSTANCE_TYPES_FILE), memory overhead applied;
  // shared by every copy of the context, not copied into each.
  shared_instance_types instance_types;
  // Wall clock in Unix milliseconds, for comparing with API timestamps. Timers do NOT use this:
  // they come from the actor clock (delayed_send), so test_coordinator drives them.
  std::function<std::int64_t()> wall_clock_ms = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
};

// Sends an Event to the recorder when there is one.
// One context shared, read-only, by many actors of one kind: the 4,000 NodeClaim actors of a
// large cluster hold one instead of a copy each (its settings and CA are kilobytes).
using shared_context = std::shared_ptr<const controller_context>;

inline void record_event(const controller_context& ctx, protocol::event_record event) {
  if (ctx.events) caf::anon_send(ctx.events, std::move(event));
}

}  // namespace kp::actors
