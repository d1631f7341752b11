#pragma once
// The conditions a NodeOverlay should show for its verdict (pure: no CAF, no I/O), as
// Karpenter v1.14 writes them: ValidationSucceeded (False with reason RuntimeValidation or
// Conflict and a message naming the field or the overlays it conflicts with) and Ready, the
// conjunction of its dependents.
#include <cstdint>
#include <string>

#include "core/node_overlay/node_overlay.hpp"
#include "protocol/kube/karpenter_v1alpha1.hpp"

namespace kp::actors::node_overlay {

// Conditions of other types are kept; one whose status does not change keeps its
// lastTransitionTime.
kube::node_overlay_status desired_status(const kube::node_overlay& object,
                                         const overlays::verdict& verdict,
                                         std::int64_t now_unix_ms);

// The same as far as a write is concerned: conditions by type, lastTransitionTime ignored.
bool equivalent(const kube::node_overlay_status& a, const kube::node_overlay_status& b);

// The merge patch for the status subresource: {"status":{"conditions":[...]}}.
std::string status_patch(const kube::node_overlay_status& desired);

// The ValidationSucceeded condition of a status, or nullptr.
const kube::condition* validation_condition(const kube::node_overlay_status& status);

}  // namespace kp::actors::node_overlay
