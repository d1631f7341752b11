#pragma once
// Waiting for the one completion of an asynchronous call (a Kubernetes or Proxmox client's
// callback on an io thread) from a test's own thread: on a future, with a deadline, never a
// bare sleep.
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <utility>

#include "core/result.hpp"

namespace kp::test_support {

// Runs `start(callback)` and waits up to `within` for the callback's value; "test_timeout" when
// none came in time.
template <class T, class Start>
result<T> await_completion(Start&& start, std::chrono::milliseconds within) {
  auto done = std::make_shared<std::promise<result<T>>>();
  auto future = done->get_future();
  std::forward<Start>(start)([done](result<T> r) { done->set_value(std::move(r)); });
  if (future.wait_for(within) != std::future_status::ready)
    return make_error("test_timeout",
                      "no completion within " + std::to_string(within.count()) + " ms");
  return future.get();
}

}  // namespace kp::test_support
