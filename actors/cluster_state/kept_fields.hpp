#pragma once
// What the informers keep of a decoded object. With 100,000 pods every field held costs memory
// in every snapshot, so fields no reader uses are dropped before an object is shared, and
// vectors are cut to their size (the decoder grows them by doubling).
#include <functional>

#include "protocol/kube/core_v1.hpp"

namespace kp::actors::cluster_state {

// Every other kind is kept as decoded.
template <class T>
void keep_used_fields(T&) {}

// A pod keeps only its PodScheduled condition's status and reason (what readers look at:
// Karpenter's "unschedulable" test); the other conditions (Ready, Initialized, ...), container
// images and ports without a host port are dropped (the status message, reason and IPs are not
// even decoded).
void keep_used_fields(kube::pod& pod);

// A Node drops what no reader uses: its addresses, system info (machine, boot and system IDs,
// versions), volumes in use and attached, and its conditions' heartbeat times (readers look at
// type, status, reason, message and transition time). Nodes are only ever patched, never
// written whole from this copy, so nothing dropped here is lost on the server.
void keep_used_fields(kube::node& node);

// What an informer of kind T applies to every object it decodes: keep_used_fields, and for pods
// also the sharing of parts between pods of one controller (shared_pod_parts.hpp). Each call
// makes a new, independent keeper (one per informer).
template <class T>
std::function<void(T&)> object_keeper() {
  return [](T& object) { keep_used_fields(object); };
}
template <>
std::function<void(kube::pod&)> object_keeper<kube::pod>();

}  // namespace kp::actors::cluster_state
