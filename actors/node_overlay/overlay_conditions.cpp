#include "actors/node_overlay/overlay_conditions.hpp"

#include "actors/condition_reasons.hpp"
#include "actors/status_conditions.hpp"
#include "protocol/kube/model_translation.hpp"
#include "protocol/kube/patches.hpp"

namespace kp::actors::node_overlay {
namespace {

constexpr const char* validation_succeeded = "ValidationSucceeded";
constexpr const char* ready = "Ready";

kube::condition make_condition(const kube::node_overlay& object, const std::string& type,
                               const std::string& status, condition_reason reason,
                               const std::string& message, std::int64_t now_ms) {
  return next_condition(object.status.conditions, type, status, reason, message,
                        object.metadata.generation, kube::format_rfc3339(now_ms));
}

}  // namespace

kube::node_overlay_status desired_status(const kube::node_overlay& object,
                                         const overlays::verdict& verdict,
                                         std::int64_t now_unix_ms) {
  kube::node_overlay_status s;
  for (const auto& c : object.status.conditions)
    if (c.type != validation_succeeded && c.type != ready) s.conditions.push_back(c);
  switch (verdict.kind) {
    case overlays::verdict_kind::applied:
      s.conditions.push_back(make_condition(object, validation_succeeded, "True",
                                            "ValidationSucceeded", "", now_unix_ms));
      s.conditions.push_back(make_condition(object, ready, "True", "Ready", "", now_unix_ms));
      break;
    case overlays::verdict_kind::conflict:
    case overlays::verdict_kind::invalid: {
      bool conflict = verdict.kind == overlays::verdict_kind::conflict;
      s.conditions.push_back(make_condition(
          object, validation_succeeded, "False",
          conflict ? condition_reason("Conflict") : condition_reason("RuntimeValidation"),
          verdict.message, now_unix_ms));
      s.conditions.push_back(make_condition(object, ready, "False", "UnhealthyDependents",
                                            "ValidationSucceeded=False", now_unix_ms));
      break;
    }
  }
  return s;
}

bool equivalent(const kube::node_overlay_status& a, const kube::node_overlay_status& b) {
  return same_conditions(a.conditions, b.conditions);
}

std::string status_patch(const kube::node_overlay_status& desired) {
  return kube::conditions_status_merge_patch(desired.conditions);
}

const kube::condition* validation_condition(const kube::node_overlay_status& status) {
  return find_condition(status.conditions, validation_succeeded);
}

}  // namespace kp::actors::node_overlay
