#pragma once
// The label values the controller's counters are known to take, and the series made from them at
// start (at zero), so a dashboard's rate() shows 0 rather than "no data" and an alert on a first
// event sees it. Values that name objects (a NodePool) are primed when the object is first seen.
// The actors that count keep to these values; test/actors/fleet_gauges checks that they do.
#include <array>
#include <string>
#include <string_view>

#include "observability/karpenter_metrics.hpp"

namespace kp::obs {

// karpenter_nodeclaims_created_total{reason}: provisioning, or the disruption a replacement is for.
inline constexpr std::array<std::string_view, 5> nodeclaim_creation_reasons{
    "provisioned", "empty", "drifted", "underutilized", "expired"};

// karpenter_nodeclaims_disrupted_total{reason}: Karpenter's lower-case reasons.
inline constexpr std::array<std::string_view, 8> nodeclaim_disruption_reasons{
    "empty",     "drifted",           "underutilized",  "expired",
    "unhealthy", "garbage_collected", "launch_timeout", "registration_timeout"};

// karpenter_voluntary_disruption_*{consolidation_type}: "" is drift (and expiration).
inline constexpr std::array<std::string_view, 4> consolidation_types{"", "empty", "multi",
                                                                     "single"};

// karpenter_voluntary_disruption_decisions_total{decision, reason, consolidation_type}: each
// reason with the consolidation method that decides it.
inline constexpr std::array<std::string_view, 2> disruption_decisions{"delete", "replace"};
struct disruption_decision_kind {
  std::string_view reason;
  std::string_view consolidation_type;
};
inline constexpr std::array<disruption_decision_kind, 4> disruption_decision_kinds{{
    {"empty", "empty"},
    {"drifted", ""},
    {"underutilized", "multi"},
    {"underutilized", "single"},
}};

// karpenter_proxmox_disruption_blocked_total{reason}: the categories a blocked node is counted
// under (nodes still initializing, being deleted or disrupted are not counted as blocked).
inline constexpr std::array<std::string_view, 11> disruption_block_reasons{
    "do-not-disrupt", "pdb",          "budget",   "not-ready",
    "stabilization",  "min-node-age", "headroom", "nodepool-unknown",
    "unhealthy-pool", "other",        "aborted"};

// The capacity type of every Proxmox NodeClaim.
inline constexpr std::string_view default_capacity_type = "on-demand";

// Creates at zero every series whose labels are all known at start.
void prime_known_series(karpenter_metrics& metrics);

// Creates at zero the series of one NodePool: NodeClaims created and disrupted by each known
// reason, and the lifecycle duration histograms. Creating a series twice changes nothing.
void prime_nodepool_series(karpenter_metrics& metrics, const std::string& nodepool);

}  // namespace kp::obs
