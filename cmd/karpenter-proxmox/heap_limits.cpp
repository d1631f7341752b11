#include "cmd/karpenter-proxmox/heap_limits.hpp"

#include <condition_variable>
#include <mutex>

#include <malloc.h>

namespace kp::cmd {

void limit_heap_growth() {
  constexpr int arenas = 2;
  mallopt(M_ARENA_MAX, arenas);
}

heap_trimmer::heap_trimmer(std::chrono::milliseconds period)
    : thread_([period](std::stop_token stop) {
        std::mutex m;
        std::condition_variable_any wake;
        std::unique_lock lock(m);
        // Woken early only by the destructor's stop request.
        while (!wake.wait_for(lock, stop, period, [] { return false; }) && !stop.stop_requested())
          malloc_trim(0);
      }) {}

}  // namespace kp::cmd
