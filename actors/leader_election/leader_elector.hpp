#pragma once
// The leader elector: one per replica, on a coordination.k8s.io/v1 Lease. It creates the Lease
// when absent, takes it when free or expired, renews it every retry_period with an optimistic
// update, and tells its listener `true` on acquiring and `false` the moment it can no longer
// count on holding it (a renewal missing its renew_deadline, or the Lease seen in other hands).
// On exit it gives the Lease up (holder "") so another replica need not wait for expiry.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <caf/fwd.hpp>

#include "config/settings.hpp"
#include "observability/karpenter_metrics.hpp"
#include "protocol/controller_messages.hpp"
#include "protocol/kube/client.hpp"

namespace kp::actors::leader_election {

struct leader_election_options {
  std::string name = "karpenter-leader-election";
  std::string namespace_ = "kube-system";
  std::string identity;  // unique per replica: the pod name (plus a random suffix)
  std::chrono::milliseconds lease_duration{std::chrono::seconds(15)};
  std::chrono::milliseconds renew_deadline{std::chrono::seconds(10)};
  std::chrono::milliseconds retry_period{std::chrono::seconds(2)};
  // The "now" written into and compared with the Lease's times (Unix milliseconds). Timers do
  // not use it: they come from the actor clock.
  std::function<std::int64_t()> wall_clock_ms;  // empty: the system clock
  // Give the Lease up on exit. Tests turn it off to stand for a replica that crashed.
  bool release_on_exit = true;
  // Counts failures at its boundary; may be null.
  std::shared_ptr<obs::karpenter_metrics> metrics;
};

// The options from the settings (LEADER_ELECTION_NAME, _NAMESPACE, _LEASE_DURATION,
// _RENEW_DEADLINE, _RETRY_PERIOD); `pod_namespace` stands in for an empty namespace setting.
leader_election_options options_from(const config::settings& settings, std::string identity,
                                     const std::string& pod_namespace);

protocol::leader_elector_actor spawn_leader_elector(caf::actor_system& system,
                                                    std::shared_ptr<kube::client> kube,
                                                    leader_election_options options,
                                                    protocol::leadership_listener listener);

}  // namespace kp::actors::leader_election
