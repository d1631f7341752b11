#pragma once
// What the lab reports about the controller process: its peak resident memory (VmHWM) and the
// CPU time it used, read from /proc.
#include <sys/types.h>

#include <chrono>
#include <optional>

namespace kp::lab {

struct process_sample {
  std::chrono::steady_clock::time_point at;
  long peak_rss_kib = 0;   // VmHWM
  long rss_kib = 0;        // VmRSS
  double cpu_seconds = 0;  // utime + stime
};

// nullopt when the process is gone.
std::optional<process_sample> sample_process(pid_t pid);

// Average cores used between two samples.
double average_cores(const process_sample& from, const process_sample& to);

}  // namespace kp::lab
