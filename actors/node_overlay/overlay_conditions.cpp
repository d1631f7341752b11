#include "actors/node_overlay/overlay_conditions.hpp"

#include <boost/json.hpp>

#include "actors/condition_reasons.hpp"
#include "protocol/kube/model_translation.hpp"

namespace kp::actors::node_overlay {
namespace {

constexpr const char* validation_succeeded = "ValidationSucceeded";
constexpr const char* ready = "Ready";

const kube::condition* find_condition(const std::vector<kube::condition>& list,
                                      const std::string& type) {
  for (const auto& c : list)
    if (c.type == type) return &c;
  return nullptr;
}

kube::condition make_condition(const kube::node_overlay& object, const std::string& type,
                               const std::string& status, condition_reason reason,
                               const std::string& message, std::int64_t now_ms) {
  kube::condition c;
  c.type = type;
  c.status = status;
  c.reason = reason.str();
  c.message = message;
  c.observed_generation = object.metadata.generation;
  const auto* old = find_condition(object.status.conditions, type);
  c.last_transition_time = old && old->status == status && !old->last_transition_time.empty()
                               ? old->last_transition_time
                               : kube::format_rfc3339(now_ms);
  return c;
}

bool same_condition(const kube::condition& a, const kube::condition& b) {
  return a.type == b.type && a.status == b.status && a.reason == b.reason &&
         a.message == b.message && a.observed_generation == b.observed_generation;
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
  if (a.conditions.size() != b.conditions.size()) return false;
  for (const auto& c : a.conditions) {
    const auto* other = find_condition(b.conditions, c.type);
    if (other == nullptr || !same_condition(c, *other)) return false;
  }
  return true;
}

std::string status_patch(const kube::node_overlay_status& desired) {
  namespace bj = boost::json;
  bj::array conditions;
  for (const auto& c : desired.conditions) {
    bj::object o;
    o["type"] = c.type;
    o["status"] = c.status;
    o["reason"] = c.reason;
    o["message"] = c.message;
    o["lastTransitionTime"] = c.last_transition_time;
    if (c.observed_generation > 0) o["observedGeneration"] = c.observed_generation;
    conditions.push_back(std::move(o));
  }
  bj::object status;
  status["conditions"] = std::move(conditions);
  bj::object body;
  body["status"] = std::move(status);
  return bj::serialize(body);
}

const kube::condition* validation_condition(const kube::node_overlay_status& status) {
  return find_condition(status.conditions, validation_succeeded);
}

}  // namespace kp::actors::node_overlay
