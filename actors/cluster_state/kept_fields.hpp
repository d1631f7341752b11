#pragma once
// What the informers keep of a decoded object. With 100,000 pods every field held costs memory
// in every snapshot, so fields no reader uses are dropped before an object is shared, and
// vectors are cut to their size (the decoder grows them by doubling).
#include "protocol/kube/core_v1.hpp"

namespace kp::actors::cluster_state {

// Every other kind is kept as decoded.
template <class T>
void keep_used_fields(T&) {}

// A pod keeps only its PodScheduled condition's status and reason (what readers look at:
// Karpenter's "unschedulable" test); the other conditions (Ready, Initialized, ...), the status
// message, reason and IPs, container images and ports without a host port are dropped.
void keep_used_fields(kube::pod& pod);

}  // namespace kp::actors::cluster_state
