#pragma once
// Waiting for something a test cannot be told about: poll a predicate with a deadline, never a
// bare sleep. Between checks it pauses a short slice so a server under test is not hammered;
// the predicate gets one last look at the deadline, so a slow last step still counts.
#include <chrono>
#include <thread>

namespace kp::test_support {

template <class Predicate>
bool eventually(Predicate&& predicate, std::chrono::milliseconds within,
                std::chrono::milliseconds slice = std::chrono::milliseconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  while (std::chrono::steady_clock::now() < deadline) {
    if (predicate()) return true;
    std::this_thread::sleep_for(slice);  // the poll interval, not a wait for the result
  }
  return static_cast<bool>(predicate());
}

}  // namespace kp::test_support
