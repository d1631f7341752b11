#include "core/disruption/do_not_disrupt.hpp"

#include <chrono>

#include "core/time/go_duration.hpp"

namespace kp::disruption {

do_not_disrupt read_pod_do_not_disrupt(std::optional<std::string_view> value,
                                       std::optional<std::int64_t> started_unix_ms,
                                       std::int64_t now_unix_ms) {
  do_not_disrupt out;
  if (!value) return out;
  if (*value == "true") {
    out.what = do_not_disrupt::state::forever;
    return out;
  }
  auto d = time::parse_go_duration(*value);
  if (!d) {
    out.what = do_not_disrupt::state::invalid;
    out.error =
        "failed to parse \"" + std::string(*value) + "\" as a duration: " + d.error().message;
    return out;
  }
  if (d->count() <= 0) {
    out.what = do_not_disrupt::state::invalid;
    out.error = "duration \"" + std::string(*value) + "\" must be positive";
    return out;
  }
  // Karpenter fails safe: without a start time the grace period has not begun to run out.
  if (!started_unix_ms) {
    out.what = do_not_disrupt::state::forever;
    return out;
  }
  out.until_unix_ms =
      *started_unix_ms + std::chrono::duration_cast<std::chrono::milliseconds>(*d).count();
  out.what = now_unix_ms < out.until_unix_ms ? do_not_disrupt::state::until
                                             : do_not_disrupt::state::elapsed;
  return out;
}

bool node_do_not_disrupt(std::optional<std::string_view> value) {
  return value && *value == "true";
}

}  // namespace kp::disruption
