#include "actors/nodeclaim/launch_steps.hpp"

#include <cstdio>
#include <utility>

namespace kp::actors::nodeclaim {

namespace {

double seconds(std::int64_t us) {
  return static_cast<double>(us) / 1e6;
}

std::string three_decimals(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

}  // namespace

std::optional<launch_steps> steps_to_ready(
    const protocol::launch_step_times& region,
    std::chrono::steady_clock::duration answered_to_initialized) {
  if (!region.measured || answered_to_initialized.count() < 0 || region.after_boot_us < 0) {
    return std::nullopt;
  }
  launch_steps s;
  s.clone_mode = region.full_clone ? "full" : "linked";
  s.clone = seconds(region.clone_us);
  s.configure = seconds(region.configure_us);
  s.boot = seconds(region.boot_us);
  s.join = seconds(region.after_boot_us) +
           std::chrono::duration<double>(answered_to_initialized).count();
  return s;
}

void observe_launch_steps(obs::karpenter_metrics& m, const launch_steps& s) {
  for (const auto& [step, value] :
       {std::pair{"clone", s.clone}, std::pair{"configure", s.configure}, std::pair{"boot", s.boot},
        std::pair{"join", s.join}}) {
    m.launch_step_duration
        .Add({{"step", step}, {"clone_mode", s.clone_mode}}, obs::duration_buckets())
        .Observe(value);
  }
  m.clone_to_ready_duration.Add({{"clone_mode", s.clone_mode}}, obs::duration_buckets())
      .Observe(s.total());
}

obs::log_fields launch_step_fields(const std::string& nodeclaim, const launch_steps& s) {
  return {{"nodeclaim", nodeclaim},
          {"clone-mode", s.clone_mode},
          {"clone-seconds", three_decimals(s.clone)},
          {"configure-seconds", three_decimals(s.configure)},
          {"boot-seconds", three_decimals(s.boot)},
          {"join-seconds", three_decimals(s.join)},
          {"total-seconds", three_decimals(s.total())}};
}

}  // namespace kp::actors::nodeclaim
