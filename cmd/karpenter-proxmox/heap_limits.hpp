#pragma once
// The allocator the controller process runs on, and how it holds its heap. The build links
// jemalloc (KP_JEMALLOC, the default): 100,000 model pods and the label maps, strings and shared
// parts they hold are some three million small blocks, on which glibc's per-block header and the
// pages a transient frees below live objects cost about a fifth of the peak RSS
// (bench/controller_scale/README.md). jemalloc keeps small blocks headerless in size classes;
// the process runs it with one arena and hands freed pages back within 200 ms. Sanitizer builds
// keep glibc's allocator, limited to two arenas and trimmed periodically.
#include <chrono>
#include <optional>
#include <string_view>
#include <thread>

namespace kp::cmd {

// "jemalloc" or "glibc".
std::string_view heap_allocator();

// jemalloc's settings as it runs them; nullopt on glibc.
struct jemalloc_settings {
  unsigned arenas = 0;  // for the application's blocks (jemalloc adds one for huge ones)
  long dirty_decay_ms = 0;
  long muzzy_decay_ms = 0;
  bool background_thread = false;  // purges freed pages off the allocating threads
};
std::optional<jemalloc_settings> running_jemalloc();

// Set once, first thing, before any thread starts. glibc: two malloc arenas instead of up to
// eight per core (pods decoded on the io threads and the snapshots and model pods the actor
// threads build from them otherwise leave free pages stranded in many per-thread arenas).
// jemalloc reads its settings at its own start, so there is nothing left to set.
void limit_heap_growth();

// glibc: calls malloc_trim every `period` until destroyed. glibc returns freed memory to the
// system only from the top of an arena; what a disruption pass, a list or a scrape frees below
// live objects stays resident and adds to the next transient instead of being reused by it.
// jemalloc returns freed pages itself, so no thread is started.
class heap_trimmer {
 public:
  explicit heap_trimmer(std::chrono::milliseconds period);

 private:
  std::jthread thread_;
};

}  // namespace kp::cmd
