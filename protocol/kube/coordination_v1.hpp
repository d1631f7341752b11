#pragma once
// coordination.k8s.io/v1 Lease: leader election of the controller and node heartbeats.
#include <cstdint>
#include <optional>
#include <string>

#include "protocol/kube/api_resource.hpp"
#include "protocol/kube/meta_types.hpp"

namespace kp::kube {

struct lease_spec {
  std::string holder_identity;
  std::optional<std::int64_t> lease_duration_seconds;
  std::string acquire_time;  // MicroTime, e.g. 2025-01-01T10:00:00.123456Z
  std::string renew_time;
  std::optional<std::int64_t> lease_transitions;
  friend bool operator==(const lease_spec&, const lease_spec&) = default;
};

struct lease {
  static constexpr api_resource resource{"coordination.k8s.io", "v1", "Lease", "leases", true};
  object_meta metadata;
  lease_spec spec;
  friend bool operator==(const lease&, const lease&) = default;
};

}  // namespace kp::kube
