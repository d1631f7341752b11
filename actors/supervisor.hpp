#pragma once
// The supervisor: spawns the actors described by child specs, monitors them, restarts one that
// stops on its own (restart_schedule.hpp: exponential backoff, so a crash loop does not spin), and
// stops them all when it is told to exit (anon_send_exit(supervisor, exit_reason::user_shutdown)).
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "actors/restart_schedule.hpp"
#include "observability/karpenter_metrics.hpp"
#include "protocol/messages.hpp"

namespace kp::actors {

struct child_spec {
  std::string name;  // unique, for logs and the children query
  // Spawns the child; called again on every restart.
  std::function<caf::actor(caf::actor_system&)> spawn;
};

// `metrics` (optional) counts failures at its boundary and restarts
// (karpenter_proxmox_actor_restarts_total{actor=<child name>}).
protocol::supervisor_actor spawn_supervisor(caf::actor_system& system,
                                            std::vector<child_spec> children,
                                            restart_policy policy = {},
                                            std::shared_ptr<obs::karpenter_metrics> metrics = {});

}  // namespace kp::actors
