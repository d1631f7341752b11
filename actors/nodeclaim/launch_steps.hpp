#pragma once
// A VM's clone -> Ready split into its steps: clone, configure and boot as the region measured
// them, and the join, from the region's answer to the NodeClaim Initialized. Observed once per
// VM into karpenter_proxmox_launch_step_duration_seconds and logged as "clone to ready" (the
// lab and bench-controller-burst read that line). Pure: no CAF.
#include <chrono>
#include <optional>
#include <string>

#include "observability/karpenter_metrics.hpp"
#include "observability/logging.hpp"
#include "protocol/launch_step_times.hpp"

namespace kp::actors::nodeclaim {

struct launch_steps {
  std::string clone_mode;  // "linked" or "full"
  double clone = 0;        // seconds
  double configure = 0;
  double boot = 0;
  double join = 0;
  double total() const { return clone + configure + boot + join; }
};

// nullopt when the region did not measure the launch (it resumed or adopted a VM) or the join
// is negative. A guest-agent join (between the start and the region's answer) counts as join.
std::optional<launch_steps> steps_to_ready(
    const protocol::launch_step_times& region,
    std::chrono::steady_clock::duration answered_to_initialized);

void observe_launch_steps(obs::karpenter_metrics& metrics, const launch_steps& steps);

// nodeclaim, clone-mode, and <step>-seconds for clone, configure, boot, join and total.
obs::log_fields launch_step_fields(const std::string& nodeclaim, const launch_steps& steps);

}  // namespace kp::actors::nodeclaim
