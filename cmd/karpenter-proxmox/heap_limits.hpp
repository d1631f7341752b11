#pragma once
// How the controller process asks glibc's allocator to hold its heap: the arena limit, set once,
// first thing, before any thread starts; and a trimmer that hands freed pages back while it runs.
#include <chrono>
#include <thread>

namespace kp::cmd {

// Two malloc arenas instead of up to eight per core: pods decoded on the io threads and the
// snapshots, model pods and maps the actor threads build from them otherwise leave free pages
// stranded in many per-thread arenas, which the peak RSS pays for.
void limit_heap_growth();

// Calls malloc_trim every `period` until destroyed. glibc returns freed memory to the system only
// from the top of an arena; what a disruption pass, a list or a scrape frees below live objects
// stays resident and adds to the next transient instead of being reused by it.
class heap_trimmer {
 public:
  explicit heap_trimmer(std::chrono::milliseconds period);

 private:
  std::jthread thread_;
};

}  // namespace kp::cmd
