#pragma once
// Durations written as Go writes them ("1h30m", "500ms", "15m", "-1.5h"): the syntax of every
// Karpenter setting and CRD duration field.
#include <chrono>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace kp::time {

// Go's time.ParseDuration: a sequence of decimal numbers with units ns, us (or µs), ms, s, m, h;
// "0" alone is allowed. Overflow and unknown units are errors naming the text.
result<std::chrono::nanoseconds> parse_go_duration(std::string_view text);

// Go's Duration.String(): "1h30m0s", "500ms", "0s".
std::string format_go_duration(std::chrono::nanoseconds d);

}  // namespace kp::time
