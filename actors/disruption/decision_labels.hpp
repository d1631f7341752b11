#pragma once
// Metric labels and Event texts for disruption decisions: a bounded label set out of the
// planner's free-text reasons (a label must never carry a node or pod name), and Karpenter's
// names for methods and reasons.
#include <string>
#include <string_view>

#include "actors/condition_reasons.hpp"
#include "core/disruption/planner.hpp"

namespace kp::actors::disruption {

// "do-not-disrupt", "pdb", "budget", "not-initialized", "deleting", "disrupting", "not-ready",
// "stabilization", "min-node-age", "headroom", "nodepool-unknown", "unhealthy-pool" or "other".
std::string blocked_category(std::string_view reason);

// karpenter_voluntary_disruption_* consolidation_type: "empty", "multi", "single" or "" (drift).
std::string consolidation_type(std::string_view method);

// The reason label ("empty", "drifted", "underutilized", "expired") and the Karpenter spelling
// used in Events and the DisruptionReason condition ("Empty", "Drifted", ...).
std::string reason_label(kp::disruption::command_reason r);
std::string reason_title(kp::disruption::command_reason r);
condition_reason disruption_condition_reason(kp::disruption::command_reason r);

}  // namespace kp::actors::disruption
