#pragma once
// Durations in Go's syntax ("1m30s", "500ms", "15m", "1.5h"), so the values written for Karpenter
// and the Go provider (env, chart values) mean the same here. The parser is core/time's.
#include <chrono>

#include "core/time/go_duration.hpp"

namespace kp::config {

using duration = std::chrono::nanoseconds;

inline result<duration> parse_duration(std::string_view text) {
  return time::parse_go_duration(text);
}
inline std::string format_duration(duration d) {
  return time::format_go_duration(d);
}

}  // namespace kp::config
