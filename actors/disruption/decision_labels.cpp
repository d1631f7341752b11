#include "actors/disruption/decision_labels.hpp"

namespace kp::actors::disruption {
namespace {

bool has(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

}  // namespace

std::string blocked_category(std::string_view reason) {
  if (has(reason, "do-not-disrupt")) return "do-not-disrupt";
  if (has(reason, "PodDisruptionBudget") || has(reason, "pdb ")) return "pdb";
  if (has(reason, "budget")) return "budget";
  if (has(reason, "not initialized")) return "not-initialized";
  if (has(reason, "being deleted")) return "deleting";
  if (has(reason, "being disrupted")) return "disrupting";
  if (has(reason, "not ready")) return "not-ready";
  if (has(reason, "stabilization")) return "stabilization";
  if (has(reason, "minimum node age")) return "min-node-age";
  if (has(reason, "headroom") || has(reason, "load")) return "headroom";
  if (has(reason, "NodePool") && has(reason, "not known")) return "nodepool-unknown";
  if (has(reason, "unhealthy")) return "unhealthy-pool";
  return "other";
}

std::string consolidation_type(std::string_view method) {
  if (method == "emptiness") return "empty";
  if (method == "multi-node") return "multi";
  if (method == "single-node") return "single";
  return "";
}

std::string reason_label(kp::disruption::command_reason r) {
  using kp::disruption::command_reason;
  switch (r) {
    case command_reason::empty:
      return "empty";
    case command_reason::drifted:
      return "drifted";
    case command_reason::underutilized:
      return "underutilized";
    case command_reason::expired:
      return "expired";
  }
  return "unknown";
}

std::string reason_title(kp::disruption::command_reason r) {
  return std::string(kp::disruption::to_string(r));
}

condition_reason disruption_condition_reason(kp::disruption::command_reason r) {
  // Karpenter's spellings, which are also the planner's names of the reasons.
  for (condition_reason reason : {condition_reason("Empty"), condition_reason("Drifted"),
                                  condition_reason("Underutilized"), condition_reason("Expired")}) {
    if (reason.view() == kp::disruption::to_string(r)) return reason;
  }
  return "Underutilized";  // unreachable while the planner has only the four reasons above
}

}  // namespace kp::actors::disruption
