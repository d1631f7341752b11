#pragma once
// A planned NodeClaim (core/scheduling) turned into the karpenter.sh/v1 object to create
// (karpenter-core.md 1.3, 3.8): name "<nodepool>-<5 random lowercase alphanumerics>", the
// NodePool's template labels plus karpenter.sh/nodepool and the node class label, the NodePool's
// hash annotations, requirements with the instance types, requests, taints, startup taints,
// nodeClassRef, expireAfter/terminationGracePeriod, and an owner reference to the NodePool.
#include <random>
#include <string>

#include "core/scheduling/provision.hpp"
#include "protocol/kube/karpenter_v1.hpp"

namespace kp::actors::provisioning {

inline constexpr const char* nodepool_hash_annotation = "karpenter.sh/nodepool-hash";
inline constexpr const char* nodepool_hash_version_annotation =
    "karpenter.sh/nodepool-hash-version";
inline constexpr const char* min_values_relaxed_annotation =
    "karpenter.sh/nodeclaim-min-values-relaxed";

// Five characters from [a-z0-9], as the API server's generateName suffix.
std::string random_suffix(std::mt19937_64& rng);

kube::node_claim build_nodeclaim(const scheduling::planned_nodeclaim& plan,
                                 const scheduling::snapshot& snap, const kube::node_pool& pool,
                                 const std::string& name);

}  // namespace kp::actors::provisioning
