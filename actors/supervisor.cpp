#include "actors/supervisor.hpp"

#include <map>

#include <caf/all.hpp>

#include <prometheus/counter.h>
#include <prometheus/family.h>

#include "actors/failure_boundary.hpp"
#include "observability/logging.hpp"

namespace kp::actors {
namespace {

struct running_child {
  child_spec spec;
  caf::actor handle;  // invalid while waiting for a restart
  restart_schedule restarts;
  prometheus::Counter* restarted = nullptr;  // null without metrics
};

struct supervisor_state {
  std::map<std::string, running_child> children;
  bool stopping = false;
  obs::logger log{"supervisor"};
  static inline const char* name = "supervisor";
};

using supervisor_pointer = protocol::supervisor_actor::stateful_pointer<supervisor_state>;

void start_child(supervisor_pointer self, running_child& child) {
  child.handle = child.spec.spawn(self->system());
  child.restarts.started(self->clock().now());
  self->monitor(child.handle);
  self->state.log.debug("started actor", {{"actor", child.spec.name}});
}

protocol::supervisor_actor::behavior_type supervisor_behavior(
    supervisor_pointer self, std::vector<child_spec> specs, restart_policy policy,
    boundary_ptr boundary, std::shared_ptr<obs::karpenter_metrics> metrics) {
  install_boundary(self, boundary);
  for (auto& spec : specs) {
    auto name = spec.name;
    auto [it, _] = self->state.children.emplace(
        name, running_child{std::move(spec), caf::actor{}, restart_schedule(policy)});
    if (metrics) it->second.restarted = &metrics->actor_restarts.Add({{"actor", name}});
    start_child(self, it->second);
  }
  self->set_down_handler(guarded(boundary, [self](caf::down_msg& down) {
    if (self->state.stopping) return;
    for (auto& [name, child] : self->state.children) {
      if (child.handle && child.handle.address() == down.source) {
        child.handle = caf::actor{};
        auto delay = child.restarts.stopped(self->clock().now());
        if (child.restarted != nullptr) child.restarted->Increment();
        self->state.log.error("actor stopped; restarting it",
                              {{"actor", name},
                               {"reason", caf::to_string(down.reason)},
                               {"delay_ms", std::to_string(delay.count())}});
        self->delayed_send(self, delay, protocol::restart_atom::value, name);
        return;
      }
    }
  }));
  self->set_exit_handler([self](caf::exit_msg& exit) {
    self->state.stopping = true;
    for (auto& [name, child] : self->state.children) {
      if (child.handle) self->send_exit(child.handle, exit.reason);
    }
    self->state.log.info("stopping actors",
                         {{"count", std::to_string(self->state.children.size())}});
    self->quit(exit.reason);
  });
  return guarded_behavior<protocol::supervisor_actor::behavior_type>(
      boundary,
      [self](protocol::children_atom) {
        std::vector<std::string> names;
        for (const auto& [name, child] : self->state.children) {
          if (child.handle) names.push_back(name);
        }
        return names;
      },
      [self](protocol::restart_atom, const std::string& name) {
        auto it = self->state.children.find(name);
        if (self->state.stopping || it == self->state.children.end() || it->second.handle) return;
        start_child(self, it->second);
      });
}

}  // namespace

protocol::supervisor_actor spawn_supervisor(caf::actor_system& system,
                                            std::vector<child_spec> children, restart_policy policy,
                                            std::shared_ptr<obs::karpenter_metrics> metrics) {
  return system.spawn(supervisor_behavior, std::move(children), policy,
                      make_boundary("supervisor", metrics), metrics);
}

}  // namespace kp::actors
