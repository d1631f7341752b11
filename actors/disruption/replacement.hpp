#pragma once
// A replacement NodeClaim for a disruption command, in the shape the provisioner creates: name
// "<nodepool>-<5 random characters>", the pool template's labels and annotations, the planned
// requirements (instance types included), taints, requests, nodeClassRef, expireAfter and
// terminationGracePeriod, the hashes of the pool and node class (so that it is not drifted at
// birth), and an owner reference to its NodePool. Pure.
#include <random>
#include <string>

#include "core/disruption/cluster.hpp"
#include "core/scheduling/provision.hpp"
#include "protocol/kube/karpenter_v1.hpp"

namespace kp::actors::disruption {

// Five characters from Kubernetes' generateName alphabet (no vowels, no look-alikes).
std::string random_suffix(std::mt19937_64& rng);

kube::node_claim replacement_nodeclaim(const scheduling::planned_nodeclaim& planned,
                                       const scheduling::snapshot& snap,
                                       const kube::node_pool& pool,
                                       const kp::disruption::drift_reference& drift,
                                       const std::string& name);

}  // namespace kp::actors::disruption
