#pragma once
// Hosts shaped like pve-sim's default: 2 sockets x 8 cores x 2 threads, 2 NUMA nodes, 128 GiB.
#include "core/placement/host.hpp"

namespace kp::placement::testing {

constexpr std::int64_t gib = std::int64_t{1} << 30;

inline host_topology two_socket_host() {
  return predict_topology(2, 32, 8, 128 * gib);
}

inline host_state make_host(const std::string& name) {
  return host_state(name, two_socket_host());
}

}  // namespace kp::placement::testing
