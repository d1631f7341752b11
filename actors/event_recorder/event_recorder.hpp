#pragma once
// The Kubernetes Event recorder: every controller actor sends it protocol::event_record and
// moves on. It writes core/v1 Events as Karpenter does (involvedObject, reason, message, type,
// source.component, first/lastTimestamp, count), counts a repeat of the same object, reason and
// message within the dedup window into the existing Event (PATCH) instead of creating another,
// and drops Events beyond a per-object token bucket. Errors are logged, never retried.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <caf/fwd.hpp>

#include "observability/karpenter_metrics.hpp"
#include "protocol/controller_messages.hpp"
#include "protocol/kube/client.hpp"

namespace kp::actors::event_recorder {

struct event_recorder_options {
  std::string reporting_component = "karpenter";
  std::chrono::milliseconds dedup_window{std::chrono::minutes(10)};
  std::size_t max_remembered = 4096;  // Events (and objects) remembered, least recent forgotten
  // Per object: `burst` Events at once, then one per `refill_every` (client-go's spam filter).
  double burst = 25;
  std::chrono::milliseconds refill_every{std::chrono::minutes(5)};
  std::function<std::int64_t()> wall_clock_ms;      // empty: the system clock
  std::shared_ptr<obs::karpenter_metrics> metrics;  // counts failures at its boundary; may be null
};

protocol::event_recorder_actor spawn_event_recorder(caf::actor_system& system,
                                                    std::shared_ptr<kube::client> kube,
                                                    std::string reporting_component = "karpenter");
protocol::event_recorder_actor spawn_event_recorder(caf::actor_system& system,
                                                    std::shared_ptr<kube::client> kube,
                                                    event_recorder_options options);

}  // namespace kp::actors::event_recorder
