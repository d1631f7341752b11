#pragma once
// Durations in Go's syntax ("1m30s", "500ms", "15m", "1.5h"), so the values written for Karpenter
// and the Go provider (env, chart values) mean the same here.
#include <chrono>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace kp::config {

using duration = std::chrono::nanoseconds;

// Parses like Go's time.ParseDuration: a sequence of decimal numbers, each with an optional
// fraction and a unit (ns, us, µs, ms, s, m, h), optionally signed; "0" needs no unit.
result<duration> parse_duration(std::string_view text);

// Formats like Go's Duration.String(): "10s", "5m0s", "1h0m0s", "500ms", "1.5s", "0s".
std::string format_duration(duration d);

}  // namespace kp::config
