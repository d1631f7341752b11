#pragma once
// How the controller process asks glibc's allocator to hold its heap: called once, first thing,
// before any thread starts.
namespace kp::cmd {

// Two malloc arenas instead of up to eight per core: pods decoded on the io threads and the
// snapshots, model pods and maps the actor threads build from them otherwise leave free pages
// stranded in many per-thread arenas, which the peak RSS pays for.
void limit_heap_growth();

}  // namespace kp::cmd
