#include "actors/readiness.hpp"

#include <map>

#include <caf/all.hpp>

#include "actors/failure_boundary.hpp"
#include "observability/logging.hpp"

namespace kp::actors {
namespace {

struct readiness_state {
  std::shared_ptr<obs::health_state> health;
  std::map<std::string, protocol::readiness_report> last;
  obs::logger log{"readiness"};
  static inline const char* name = "readiness";
};

protocol::readiness_actor::behavior_type readiness_behavior(
    protocol::readiness_actor::stateful_pointer<readiness_state> self,
    std::shared_ptr<obs::health_state> health, std::shared_ptr<obs::karpenter_metrics> metrics) {
  self->state.health = std::move(health);
  auto boundary = make_boundary("readiness", metrics);
  install_boundary(self, boundary);
  return guarded_behavior<protocol::readiness_actor::behavior_type>(
      boundary,
      [self](protocol::readiness_report& report) {
        auto& state = self->state;
        auto previous = state.last.find(report.component);
        bool changed = previous == state.last.end() || previous->second.ready != report.ready ||
                       previous->second.detail != report.detail;
        // Published before it is logged: whoever reads the log line finds /readyz agreeing.
        state.health->set_condition(report.component, report.ready, report.detail);
        if (changed) {
          if (report.ready) {
            state.log.info("component ready", {{"component", report.component}});
          } else {
            state.log.warn("component not ready",
                           {{"component", report.component}, {"reason", report.detail}});
          }
        }
        state.last[report.component] = std::move(report);
      },
      [self](protocol::readiness_atom) -> std::tuple<bool, std::string> {
        auto report = self->state.health->readiness();
        return std::make_tuple(report.ok, report.body);
      });
}

}  // namespace

protocol::readiness_actor spawn_readiness(caf::actor_system& system,
                                          std::shared_ptr<obs::health_state> health,
                                          std::shared_ptr<obs::karpenter_metrics> metrics) {
  auto actor = system.spawn(readiness_behavior, std::move(health), std::move(metrics));
  system.registry().put(protocol::readiness_atom::value, actor);
  return actor;
}

void report_readiness(caf::actor_system& system, protocol::readiness_report report) {
  auto actor = system.registry().get<protocol::readiness_actor>(protocol::readiness_atom::value);
  if (actor) caf::anon_send(actor, std::move(report));
}

}  // namespace kp::actors
