#pragma once
// Registration and initialization as pure functions on API objects: what a registered Node gets
// from its NodeClaim (labels, taints, the termination finalizer, an owner reference, the
// unregistered taint removed) and whether a Node counts as initialized.
#include <optional>
#include <string>

#include "actors/condition_reasons.hpp"
#include "protocol/kube/core_v1.hpp"
#include "protocol/kube/karpenter_v1.hpp"

namespace kp::actors::nodeclaim {

// Mutates `node` to carry the claim's labels (plus karpenter.sh/registered=true), its taints and
// startup taints, the termination finalizer and an owner reference to the claim, and drops the
// karpenter.sh/unregistered taint. True when anything changed.
bool sync_registered_node(kube::node& node, const kube::node_claim& claim);

// Why the Node is not initialized yet ("NodeNotReady", "StartupTaintsExist",
// "KnownEphemeralTaintsExist", "ResourceNotRegistered": a resource the claim requests, such as a
// GPU, that the Node's allocatable does not show yet, as Karpenter waits for device plugins),
// nothing when it is.
std::optional<condition_reason> not_initialized_reason(const kube::node& node,
                                                       const kube::node_claim& claim);

}  // namespace kp::actors::nodeclaim
