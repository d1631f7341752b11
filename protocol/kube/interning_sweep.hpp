#pragma once
// When a table that shares equal parts between models sweeps out the entries nothing else holds
// any more: once it has grown by a quarter over what its last sweep left. Pods relabelled one at
// a time (bench-controller-scale's churn: a new label set per update) leave a dead entry per
// update; the table now holds at most a quarter more than its last sweep left, where waiting for
// it to double let it hold twice that. Each insert pays for about five entries scanned.
#include <algorithm>
#include <cstddef>

namespace kp::kube {

inline std::size_t next_sweep_at(std::size_t live_entries) {
  return std::max<std::size_t>(1024, live_entries + live_entries / 4);
}

}  // namespace kp::kube
