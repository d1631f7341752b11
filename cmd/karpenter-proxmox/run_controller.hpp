#pragma once
// The controller process: validates what settings alone cannot (clusters file, Kubernetes
// endpoint, ports), serves /metrics, /healthz and /readyz, boots the actors under the supervisor
// and runs until SIGTERM or SIGINT, then stops everything within 5 s.
#include "config/settings.hpp"

namespace kp::cmd {

// Returns the process exit code: 0 after a clean shutdown, 2 for bad settings, 1 when a
// resource (a port) cannot be had.
int run_controller(const config::settings& settings);

}  // namespace kp::cmd
