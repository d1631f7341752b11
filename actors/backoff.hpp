#pragma once
// Exponential backoff for retries of unreachable endpoints: initial, doubling, capped; reset on
// success. Pure and deterministic (no jitter) so actor tests with virtual time stay exact.
#include <algorithm>
#include <chrono>

namespace kp::actors {

class backoff {
 public:
  backoff(std::chrono::milliseconds initial, std::chrono::milliseconds max)
      : initial_(initial), max_(max), next_(initial) {}

  // The delay before the next attempt; each call doubles the following one up to max.
  std::chrono::milliseconds next() {
    auto current = next_;
    next_ = std::min(max_, next_ * 2);
    return current;
  }
  void reset() { next_ = initial_; }

 private:
  std::chrono::milliseconds initial_;
  std::chrono::milliseconds max_;
  std::chrono::milliseconds next_;
};

}  // namespace kp::actors
