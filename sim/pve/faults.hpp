#pragma once
// Injected faults: what pve-sim gets wrong on purpose, set at start (--faults FILE or the
// topology's `faults:` section) and at runtime through /sim/v1/faults. Rates draw from one
// seeded generator so a run with the same requests is reproducible. A fault with `duration_ms`
// heals by itself that long after the plan was set (wall-clock, not scaled by --time-scale).
#include <chrono>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace kp::sim::pve {

struct path_error_fault {
  std::string path = "*";  // templated path, e.g. /nodes/{node}/qemu/{vmid}/clone, or "*"
  // "*", a method, "write" (POST, PUT and DELETE) or several joined with ',' or '|'.
  std::string method = "*";
  double rate = 1.0;  // probability per matching request
  int status = 500;
  std::string message = "injected fault";
  int count = 0;         // how many more times it may fire; 0 = unlimited
  bool applied = false;  // a write is carried out, then answered with the error anyway
  double duration_ms = 0;
};

struct latency_fault {
  std::string path = "*";
  std::string method = "*";
  double ms = 0;  // added before the reply (not scaled by --time-scale)
  double duration_ms = 0;
};

struct task_fault {
  std::string type = "*";  // qmclone, qmstart, ... or "*"
  double rate = 1.0;
  std::string message = "injected task failure";
  int count = 0;
  double duration_ms = 0;
};

struct offline_host_fault {
  std::string node;
  int status = 595;  // 595 connect error, 596 TLS/request error
  double duration_ms = 0;
};

struct storage_fault {
  std::string node = "*";
  std::string storage;
  double duration_ms = 0;
};

struct fault_plan {
  unsigned seed = 1;
  std::vector<path_error_fault> errors;
  std::vector<latency_fault> latency;
  std::vector<task_fault> failing_tasks;
  std::vector<offline_host_fault> offline_hosts;
  double slow_clone_factor = 1.0;  // multiplies the duration of clone tasks
  std::vector<storage_fault> unreachable_storages;
};

// Parses JSON or YAML text in the format above (docs/pve-sim.md). Empty text = no faults.
result<fault_plan> parse_fault_plan(const std::string& text);
std::string fault_plan_to_json(const fault_plan& plan);

// Decisions; firing a counted fault uses it up. Time-limited faults are active from replace()
// until their duration has passed.
class fault_injector {
 public:
  using clock = std::chrono::steady_clock;

  void replace(fault_plan plan);
  const fault_plan& plan() const { return plan_; }
  // The plan as JSON, each fault with "active" (false once used up or healed).
  std::string describe() const;

  std::optional<path_error_fault> request_error(const std::string& method, const std::string& path);
  double added_latency_ms(const std::string& method, const std::string& path) const;
  std::optional<std::string> task_failure(const std::string& type);
  std::optional<int> host_offline(const std::string& node) const;
  // Since when the host has been unreachable without a break (across plan replacements).
  std::optional<clock::time_point> offline_since(const std::string& node) const;
  bool storage_unreachable(const std::string& node, const std::string& storage) const;
  double clone_factor() const { return plan_.slow_clone_factor; }

 private:
  bool active(double duration_ms) const;

  fault_plan plan_;
  clock::time_point set_at_ = clock::now();
  std::map<std::string, clock::time_point> offline_since_;
  std::mt19937 rng_{1};
};

}  // namespace kp::sim::pve
