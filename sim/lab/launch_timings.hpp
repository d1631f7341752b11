#pragma once
// Clone -> Ready per VM, read from the controller's log: the nodeclaim actor logs one
// "clone to ready" line per VM it cloned (clone, configure, boot and join seconds, and the clone
// mode). Summarised per clone mode as median and p95 of each step, for the lab's summary (a
// short table) and bench-controller-burst (key=value lines).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace kp::lab {

struct vm_launch_timing {
  std::string nodeclaim;
  std::string clone_mode;                                          // "linked" or "full"
  double clone = 0, configure = 0, boot = 0, join = 0, total = 0;  // seconds
};

// Every "clone to ready" line of a JSON-lines log; other and malformed lines are skipped.
std::vector<vm_launch_timing> parse_launch_timings(std::string_view log_text);
result<std::vector<vm_launch_timing>> read_launch_timings(const std::string& log_path);

struct step_figures {
  double median = 0, p95 = 0;
};

struct launch_timing_summary {
  std::string clone_mode;
  std::size_t vms = 0;
  step_figures clone, configure, boot, join, total;
};

// One summary per clone mode that has VMs, linked first.
std::vector<launch_timing_summary> summarise_launch_timings(
    const std::vector<vm_launch_timing>& timings);

// The lab summary's table: a header line, then one line per step and clone mode.
std::string launch_timing_table(const std::vector<launch_timing_summary>& summaries);

// `clone_to_ready_vms{clone_mode="linked"}=16` and
// `clone_to_ready_seconds{clone_mode="linked",step="clone",stat="median"}=1.012` per step
// (clone, configure, boot, join, total) and stat (median, p95).
std::vector<std::string> launch_timing_key_values(const launch_timing_summary& summary);

}  // namespace kp::lab
