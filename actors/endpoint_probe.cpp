#include "actors/endpoint_probe.hpp"

#include <caf/all.hpp>

#include "actors/backoff.hpp"
#include "actors/failure_boundary.hpp"
#include "actors/readiness.hpp"
#include "observability/logging.hpp"

namespace kp::actors {
namespace {

struct probe_state {
  std::shared_ptr<transport::http_client> client;
  probe_target target;
  probe_timing timing;
  backoff delay{std::chrono::seconds(1), std::chrono::seconds(30)};
  bool probing = false;
  obs::logger log{"probe"};
  static inline const char* name = "endpoint_probe";
};

using probe_pointer = protocol::endpoint_probe_actor::stateful_pointer<probe_state>;

protocol::endpoint_probe_actor::behavior_type probe_behavior(
    probe_pointer self, std::shared_ptr<transport::http_client> client, probe_target target,
    probe_timing timing, std::shared_ptr<obs::karpenter_metrics> metrics) {
  self->state.client = std::move(client);
  self->state.target = std::move(target);
  self->state.timing = timing;
  self->state.delay = backoff(timing.initial_backoff, timing.max_backoff);
  report_readiness(self->system(), {self->state.target.component, false, "not connected yet"});
  self->send(self, protocol::probe_atom::value);
  auto boundary = make_boundary("endpoint_probe", metrics);
  install_boundary(self, boundary);
  return guarded_behavior<protocol::endpoint_probe_actor::behavior_type>(
      boundary,
      [self](protocol::probe_atom) {
        auto& state = self->state;
        if (state.probing) return;
        state.probing = true;
        transport::http_request request;
        request.method = "GET";
        request.target = state.target.path;
        request.headers = state.target.headers;
        request.headers.emplace_back("Accept", "application/json");
        // The completion runs on an io thread: it only posts a message (cpp-stack.md §3, mode
        // A), through a weak handle so a pending request does not keep a stopped actor alive.
        caf::weak_actor_ptr weak{self->ctrl()};
        bool any_status = state.target.any_http_status_connects;
        state.client->send(state.target.base_url, std::move(request),
                           [weak, any_status](transport::response_result response) {
                             auto strong = weak.lock();
                             if (!strong) return;
                             caf::anon_send(caf::actor_cast<protocol::endpoint_probe_actor>(strong),
                                            protocol::probe_done_atom::value,
                                            classify_probe_response(response, any_status));
                           });
      },
      [self](protocol::probe_done_atom, protocol::probe_outcome& outcome) {
        auto& state = self->state;
        state.probing = false;
        report_readiness(self->system(), {state.target.component, outcome.connected,
                                          outcome.connected ? std::string() : outcome.detail});
        std::chrono::milliseconds next;
        if (outcome.connected) {
          state.delay.reset();
          next = state.timing.recheck_interval;
        } else {
          next = state.delay.next();
          state.log.debug("endpoint unreachable; retrying",
                          {{"component", state.target.component},
                           {"reason", outcome.detail},
                           {"retry_in_ms", std::to_string(next.count())}});
        }
        self->delayed_send(self, next, protocol::probe_atom::value);
      });
}

}  // namespace

protocol::probe_outcome classify_probe_response(const transport::response_result& response,
                                                bool any_http_status_connects) {
  if (!response.ok()) {
    return {false, 0, "not connected (" + response.error().message + ")"};
  }
  int status = response->status;
  if (status >= 200 && status < 300) return {true, status, ""};
  if (status == 401 || status == 403) {
    if (any_http_status_connects) return {true, status, ""};
    return {false, status, "credentials refused (HTTP " + std::to_string(status) + ")"};
  }
  if (any_http_status_connects && status < 500) return {true, status, ""};
  return {false, status, "unexpected HTTP " + std::to_string(status)};
}

protocol::endpoint_probe_actor spawn_endpoint_probe(
    caf::actor_system& system, std::shared_ptr<transport::http_client> client, probe_target target,
    probe_timing timing, std::shared_ptr<obs::karpenter_metrics> metrics) {
  return system.spawn(probe_behavior, std::move(client), std::move(target), timing,
                      std::move(metrics));
}

}  // namespace kp::actors
