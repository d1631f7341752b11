#pragma once
// A NodeOverlay object into the form core/node_overlay applies. Never fails: what cannot be
// read (an unknown operator, a malformed quantity, a weight outside the CRD's range) is kept
// in `unreadable`, so the overlay is refused with a message naming the field.
#include "core/node_overlay/node_overlay.hpp"
#include "protocol/kube/karpenter_v1alpha1.hpp"

namespace kp::kube {

overlays::overlay to_overlay(const node_overlay& object);

}  // namespace kp::kube
