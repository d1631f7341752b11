#include "actors/status_conditions.hpp"

#include <algorithm>

namespace kp::actors {

const kube::condition* find_condition(const std::vector<kube::condition>& conditions,
                                      std::string_view type) {
  for (const auto& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool condition_is_true(const std::vector<kube::condition>& conditions, std::string_view type) {
  const auto* c = find_condition(conditions, type);
  return c != nullptr && c->status == "True";
}

bool set_condition(std::vector<kube::condition>& conditions, const std::string& type,
                   const std::string& status, condition_reason why, const std::string& message,
                   const std::string& now_rfc3339, std::int64_t observed_generation) {
  const std::string reason = why.str();
  auto it = std::find_if(conditions.begin(), conditions.end(),
                         [&](const kube::condition& c) { return c.type == type; });
  if (it == conditions.end()) {
    kube::condition c;
    c.type = type;
    c.status = status;
    c.reason = reason;
    c.message = message;
    c.last_transition_time = now_rfc3339;
    c.observed_generation = observed_generation;
    conditions.push_back(std::move(c));
    return true;
  }
  bool changed = it->status != status || it->reason != reason || it->message != message ||
                 it->observed_generation != observed_generation;
  if (it->status != status || it->last_transition_time.empty()) {
    it->last_transition_time = now_rfc3339;
  }
  it->status = status;
  it->reason = reason;
  it->message = message;
  it->observed_generation = observed_generation;
  return changed;
}

kube::condition next_condition(const std::vector<kube::condition>& previous, std::string type,
                               std::string status, condition_reason reason, std::string message,
                               std::int64_t observed_generation, const std::string& now_rfc3339) {
  kube::condition c;
  const auto* old = find_condition(previous, type);
  c.last_transition_time =
      old != nullptr && old->status == status && !old->last_transition_time.empty()
          ? old->last_transition_time
          : now_rfc3339;
  c.type = std::move(type);
  c.status = std::move(status);
  c.reason = reason.str();
  c.message = std::move(message);
  c.observed_generation = observed_generation;
  return c;
}

bool same_conditions(const std::vector<kube::condition>& a, const std::vector<kube::condition>& b) {
  if (a.size() != b.size()) return false;
  for (const auto& x : a) {
    const auto* y = find_condition(b, x.type);
    if (y == nullptr || y->status != x.status || y->reason != x.reason || y->message != x.message ||
        y->observed_generation != x.observed_generation) {
      return false;
    }
  }
  return true;
}

}  // namespace kp::actors
