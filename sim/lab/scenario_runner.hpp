#pragma once
// Plays a scenario against a started lab world (with its controller running), printing one
// progress line per change, and gathers the closing summary: time to all pods Running, VMs per
// host and NUMA node, node sizes with their DaemonSet share, clone -> Ready per VM by step,
// Proxmox requests per VM, controller peak RSS and average CPU. The same live view also runs
// without a scenario until stopped.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/lab/launch_timings.hpp"
#include "sim/lab/node_sizes.hpp"
#include "sim/lab/proxmox_calls.hpp"
#include "sim/lab/scenario.hpp"
#include "sim/lab/workload_steps.hpp"
#include "sim/lab/world_observation.hpp"

namespace kp::lab {

class lab_world;

struct step_outcome {
  std::string label;
  bool passed = false;
  bool optional = false;
  std::string message;  // why it failed, or what it waited for
  double seconds = 0;
};

struct host_placement {
  std::string host;
  int vms = 0;
  long vcpus = 0;
  int unpinned = 0;                     // VMs without NUMA pinning (memory spread)
  std::map<int, int> vms_per_numa;      // pinned VMs by host NUMA node
  std::map<int, double> numa_used_gib;  // memory taken on each NUMA node
};

struct run_report {
  std::string scenario;
  bool passed = true;
  std::string failed_step;  // label and reason of the first failed step
  std::vector<step_outcome> steps;
  std::optional<double> seconds_to_all_running;  // from the first pods created
  long pods_at_all_running = 0;
  std::vector<host_placement> placement;  // when all pods first ran
  std::vector<node_size> nodes;           // when all pods first ran
  std::optional<proxmox_calls> calls;
  std::optional<double> controller_peak_rss_mib;
  std::optional<double> controller_average_cores;
  std::map<std::string, double> controller_counters;  // a few Karpenter counters at the end
  // Clone -> Ready per VM by clone mode, from every replica's "clone to ready" log lines
  std::vector<launch_timing_summary> launch_timings;
  double total_seconds = 0;

  std::string summary() const;
};

using progress_sink = std::function<void(const std::string& line)>;

// Plays every step; stops at the first failed (non-optional) step.
run_report run_scenario(lab_world& world, const scenario& s, const progress_sink& progress);

// The live view without a scenario: a progress line per change until `stop` returns true (it is
// asked every 100 ms), then the summary's figures. `report` may hold a scenario's outcome already.
void watch_world(lab_world& world, run_report& report, const std::function<bool()>& stop,
                 const progress_sink& progress);

}  // namespace kp::lab
