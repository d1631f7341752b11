#include "actors/fleet_gauges/claim_lifecycle.hpp"

#include "actors/status_conditions.hpp"
#include "core/model/labels.hpp"
#include "protocol/kube/model_translation.hpp"

namespace kp::actors::fleet_gauges {
namespace {

// The transition time of `type` when it is True.
std::optional<std::int64_t> true_since(const kube::node_claim& claim, std::string_view type) {
  const auto* c = actors::find_condition(claim.status.conditions, type);
  if (c == nullptr || c->status != "True") return std::nullopt;
  return kube::parse_rfc3339_ms(c->last_transition_time);
}

std::optional<step_time> step(std::optional<std::int64_t> from, std::optional<std::int64_t> to) {
  if (!from || !to || *to < *from) return std::nullopt;
  return step_time{*to, static_cast<double>(*to - *from) / 1000.0};
}

}  // namespace

std::string_view to_string(claim_phase phase) {
  switch (phase) {
    case claim_phase::launching:
      return "Launching";
    case claim_phase::registering:
      return "Registering";
    case claim_phase::initializing:
      return "Initializing";
    case claim_phase::ready:
      return "Ready";
    case claim_phase::terminating:
      return "Terminating";
  }
  return "Launching";  // unreachable: every phase is listed above
}

claim_phase phase_of(const kube::node_claim& claim) {
  const auto& c = claim.status.conditions;
  if (claim.metadata.deletion_timestamp) return claim_phase::terminating;
  if (!actors::condition_is_true(c, "Launched")) return claim_phase::launching;
  if (!actors::condition_is_true(c, "Registered")) return claim_phase::registering;
  if (!actors::condition_is_true(c, "Initialized")) return claim_phase::initializing;
  return claim_phase::ready;
}

claim_steps steps_of(const kube::node_claim& claim) {
  const auto created = kube::parse_rfc3339_ms(claim.metadata.creation_timestamp);
  const auto launched = true_since(claim, "Launched");
  const auto registered = true_since(claim, "Registered");
  const auto initialized = true_since(claim, "Initialized");
  return {step(created, launched), step(launched, registered), step(registered, initialized)};
}

std::string nodepool_of(const kube::node_claim& claim) {
  auto it = claim.metadata.labels.find(std::string(model::labels::nodepool));
  return it == claim.metadata.labels.end() ? std::string() : it->second;
}

}  // namespace kp::actors::fleet_gauges
