#pragma once
// Where a NodeClaim is in its lifecycle and how long each step took, read from the claim alone
// (its deletionTimestamp, its Launched/Registered/Initialized conditions and their transition
// times), so the figures hold across restarts and leader changes. The API keeps those times in
// whole seconds, and so do these durations.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/kube/karpenter_v1.hpp"

namespace kp::actors::fleet_gauges {

enum class claim_phase { launching, registering, initializing, ready, terminating };

inline constexpr std::array<claim_phase, 5> all_claim_phases{
    claim_phase::launching, claim_phase::registering, claim_phase::initializing, claim_phase::ready,
    claim_phase::terminating};

// "Launching", "Registering", "Initializing", "Ready", "Terminating".
std::string_view to_string(claim_phase phase);

// Terminating once deleted; else the first of Launched, Registered, Initialized not True.
claim_phase phase_of(const kube::node_claim& claim);

// One finished step: when it finished (Unix ms) and how long it took.
struct step_time {
  std::int64_t finished_ms = 0;
  double seconds = 0;
};

// The steps a claim has finished, each from the previous one's time: creation -> Launched=True,
// Launched=True -> Registered=True, Registered=True -> Initialized=True. A step whose times are
// missing, unparsable or out of order is left out.
struct claim_steps {
  std::optional<step_time> launch;
  std::optional<step_time> registration;
  std::optional<step_time> initialization;
};

claim_steps steps_of(const kube::node_claim& claim);

// The claim's NodePool (its karpenter.sh/nodepool label), "" when it has none.
std::string nodepool_of(const kube::node_claim& claim);

}  // namespace kp::actors::fleet_gauges
