#pragma once
// When to start again an actor that stopped on its own: exponential backoff from the policy's
// initial delay up to its maximum, so a crash loop does not spin; an actor that ran for longer
// than the longest delay was healthy, and its next restart waits the shortest delay again.
// Times come from the actor clock, so test_coordinator drives them. Shared by the supervisor
// and the NodeClaim fleet.
#include <chrono>

#include "actors/backoff.hpp"

namespace kp::actors {

struct restart_policy {
  std::chrono::milliseconds initial_delay{std::chrono::seconds(1)};
  std::chrono::milliseconds max_delay{std::chrono::seconds(30)};
};

class restart_schedule {
 public:
  using time_point = std::chrono::steady_clock::time_point;

  explicit restart_schedule(restart_policy policy)
      : delay_(policy.initial_delay, policy.max_delay), healthy_after_(policy.max_delay) {}

  void started(time_point now) { started_ = now; }

  // The delay before the next start of an actor that stopped at `now`.
  std::chrono::milliseconds stopped(time_point now) {
    if (now - started_ > healthy_after_) delay_.reset();
    return delay_.next();
  }

 private:
  backoff delay_;
  std::chrono::milliseconds healthy_after_;
  time_point started_{};
};

}  // namespace kp::actors
