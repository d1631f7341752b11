#pragma once
// How long Proxmox tasks of each type take on each host, learnt from the task waits that ended:
// a wait's first status poll goes out after the type's typical duration there (within a floor
// and a cap) rather than at once, so a clone that takes 8 s costs one or two polls instead of a
// dozen. Pure: times are durations since the wait started, given by the caller.
#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace kp::actors::region {

class task_timing {
 public:
  using duration = std::chrono::milliseconds;

  task_timing(duration floor, duration cap) : floor_(floor), cap_(std::max(floor, cap)) {}

  // When the first poll of a new task of `type` on `host` goes out. Nothing learnt: at once.
  duration first_poll(const std::string& type, const std::string& host) const;

  // A wait ended: the task still ran at the last poll at `last_running` (none: it was done at
  // the first poll) and was done at `done_at`, both counted from the wait's start.
  void observe(const std::string& type, const std::string& host,
               std::optional<duration> last_running, duration done_at);

  // The learnt typical duration (tests and logs); nothing when no task of that kind ended yet.
  std::optional<duration> typical(const std::string& type, const std::string& host) const;

 private:
  duration floor_;
  duration cap_;
  std::map<std::pair<std::string, std::string>, double> typical_ms_;
};

}  // namespace kp::actors::region
