#pragma once
// Status conditions as Karpenter writes them (metav1.Condition shape), as pure functions shared
// by the actors that write status: find, test, and set with the transition time moved only when
// the status changes, so re-running a phase on the same state writes nothing.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actors/condition_reasons.hpp"
#include "protocol/kube/meta_types.hpp"

namespace kp::actors {

const kube::condition* find_condition(const std::vector<kube::condition>& conditions,
                                      std::string_view type);
bool condition_is_true(const std::vector<kube::condition>& conditions, std::string_view type);

// Sets `type` to status/reason/message. lastTransitionTime becomes `now_rfc3339` when the status
// changes (or the condition is new). True when anything but the time changed.
bool set_condition(std::vector<kube::condition>& conditions, const std::string& type,
                   const std::string& status, condition_reason reason, const std::string& message,
                   const std::string& now_rfc3339, std::int64_t observed_generation = 0);

// The condition `type` as it should be now: lastTransitionTime kept from `previous` while the
// status stays, else `now_rfc3339`.
kube::condition next_condition(const std::vector<kube::condition>& previous, std::string type,
                               std::string status, condition_reason reason, std::string message,
                               std::int64_t observed_generation, const std::string& now_rfc3339);

// The same conditions ignoring transition/heartbeat times (what decides whether to write).
bool same_conditions(const std::vector<kube::condition>& a, const std::vector<kube::condition>& b);

}  // namespace kp::actors
