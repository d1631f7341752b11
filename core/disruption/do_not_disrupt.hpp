#pragma once
// karpenter.sh/do-not-disrupt on a pod as Karpenter v1.14 reads it (designs/
// do-not-disrupt-grace-period.md, pkg/utils/pod/scheduling.go IsDoNotDisruptActive): "true"
// protects for good; a positive Go duration protects for that long after the pod started
// (status.startTime; a pod not started yet stays protected); anything else is ignored, and the
// reason is kept for the InvalidDoNotDisruptAnnotation Event. On a Node only "true" counts.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kp::disruption {

struct do_not_disrupt {
  enum class state { absent, forever, until, elapsed, invalid };
  state what = state::absent;
  std::int64_t until_unix_ms = 0;  // for `until` and `elapsed`: start time + the duration
  std::string error;               // for `invalid`: Karpenter's reason, naming the value

  bool active() const { return what == state::forever || what == state::until; }
};

// `value` is the annotation (nullopt when the pod has none); `started_unix_ms` the pod's
// status.startTime (nullopt when it has none).
do_not_disrupt read_pod_do_not_disrupt(std::optional<std::string_view> value,
                                       std::optional<std::int64_t> started_unix_ms,
                                       std::int64_t now_unix_ms);

// The Node form: only "true" blocks (statenode.go ValidateNodeDisruptable); a duration on a Node
// is not read by Karpenter v1.14 and protects nothing.
bool node_do_not_disrupt(std::optional<std::string_view> value);

}  // namespace kp::disruption
