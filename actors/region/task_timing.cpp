#include "actors/region/task_timing.hpp"

namespace kp::actors::region {

namespace {
// A new sample weighs this much against what was learnt: a few tasks move the estimate, one
// slow outlier does not.
constexpr double sample_weight = 0.3;
// Done at the first poll: the task may be shorter still, so the next first poll tries earlier.
constexpr double done_at_first_poll = 0.75;
}  // namespace

task_timing::duration task_timing::first_poll(const std::string& type,
                                              const std::string& host) const {
  auto learnt = typical(type, host);
  if (!learnt) return duration{0};
  return std::clamp(*learnt, floor_, cap_);
}

void task_timing::observe(const std::string& type, const std::string& host,
                          std::optional<duration> last_running, duration done_at) {
  // The task ended between the last poll that saw it running and the one that saw it done.
  double sample = last_running
                      ? (static_cast<double>(last_running->count()) + done_at.count()) / 2.0
                      : static_cast<double>(done_at.count()) * done_at_first_poll;
  auto [it, fresh] = typical_ms_.try_emplace({type, host}, sample);
  if (!fresh) it->second += sample_weight * (sample - it->second);
}

std::optional<task_timing::duration> task_timing::typical(const std::string& type,
                                                          const std::string& host) const {
  auto it = typical_ms_.find({type, host});
  if (it == typical_ms_.end()) return std::nullopt;
  return duration{static_cast<std::int64_t>(it->second + 0.5)};
}

}  // namespace kp::actors::region
