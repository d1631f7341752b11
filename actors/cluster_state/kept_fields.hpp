#pragma once
// What the informers keep of a decoded object. With 100,000 pods every field held costs memory
// in every snapshot, so fields no reader uses are dropped before an object is shared, and
// vectors are cut to their size (the decoder grows them by doubling).
#include "protocol/kube/core_v1.hpp"

namespace kp::actors::cluster_state {

// Every other kind is kept as decoded.
template <class T>
void keep_used_fields(T&) {}

// A pod keeps only its PodScheduled condition (the one readers look at: Karpenter's
// "unschedulable" test); the others (Ready, Initialized, ContainersReady, ...) are dropped.
void keep_used_fields(kube::pod& pod);

}  // namespace kp::actors::cluster_state
