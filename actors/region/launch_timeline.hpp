#pragma once
// The moments one launch's steps end, read from the actor clock (virtual time under the test
// coordinator), and the step durations its reply carries. Pure: no CAF.
#include <chrono>
#include <optional>

#include "protocol/launch_step_times.hpp"

namespace kp::actors::region {

struct launch_timeline {
  using time_point = std::chrono::steady_clock::time_point;
  std::optional<time_point> clone_sent;  // the first clone call of this launch
  std::optional<time_point> cloned;      // its clone task done
  std::optional<time_point> configured;  // upload, config write, resize and firewall done
  std::optional<time_point> started;     // the start task done
  bool full_clone = false;
};

// Each step from the end of the one before. Not measured when a moment is missing (the launch
// resumed a VM it did not clone) or the moments are out of order.
protocol::launch_step_times step_times(const launch_timeline& timeline,
                                       launch_timeline::time_point answered);

}  // namespace kp::actors::region
