#include "cmd/karpenter-proxmox/heap_limits.hpp"

#include <condition_variable>
#include <cstddef>
#include <mutex>

#include <malloc.h>
#include <sys/types.h>

#ifdef KP_WITH_JEMALLOC
// jemalloc reads this at its first allocation. One arena: the actor and io threads hand objects
// to each other, and per-thread arenas would strand each other's freed pages. Pages a transient
// frees go back after 200 ms (instead of 10 s), from jemalloc's own background thread: a
// disruption pass, an inventory refresh and churn do not stack their transients on the peak, and
// the pages of one list page are still there for the next (returning them at once doubled the
// sync of 100,000 pods; bench/controller_scale/README.md).
extern "C" {
// NOLINTNEXTLINE: the name and type are jemalloc's.
const char* malloc_conf = "narenas:1,dirty_decay_ms:200,muzzy_decay_ms:0,background_thread:true";
// Declared here rather than through <jemalloc/jemalloc.h>, which would also redeclare malloc.
int mallctl(const char* name, void* oldp, std::size_t* oldlenp, void* newp, std::size_t newlen);
}
#endif

namespace kp::cmd {

#ifdef KP_WITH_JEMALLOC
namespace {

template <class T>
std::optional<T> jemalloc_option(const char* name) {
  T value{};
  std::size_t size = sizeof(value);
  if (mallctl(name, &value, &size, nullptr, 0) != 0) return std::nullopt;
  return value;
}

}  // namespace

std::string_view heap_allocator() {
  return "jemalloc";
}

std::optional<jemalloc_settings> running_jemalloc() {
  auto arenas = jemalloc_option<unsigned>("opt.narenas");
  auto dirty = jemalloc_option<ssize_t>("opt.dirty_decay_ms");
  auto muzzy = jemalloc_option<ssize_t>("opt.muzzy_decay_ms");
  auto purging = jemalloc_option<bool>("background_thread");
  if (!arenas || !dirty || !muzzy || !purging) return std::nullopt;
  return jemalloc_settings{*arenas, static_cast<long>(*dirty), static_cast<long>(*muzzy), *purging};
}

void limit_heap_growth() {}

heap_trimmer::heap_trimmer(std::chrono::milliseconds) {}

#else

std::string_view heap_allocator() {
  return "glibc";
}

std::optional<jemalloc_settings> running_jemalloc() {
  return std::nullopt;
}

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

#endif

}  // namespace kp::cmd
