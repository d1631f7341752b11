#pragma once
// A planned NodeClaim (core/scheduling) turned into the karpenter.sh/v1 object to create, the
// one way provisioning and disruption both build it, as Karpenter's NodeClaimTemplate does
// (karpenter-core.md 1.3, 3.8):
// - name "<nodepool>-<suffix>", the suffix from generated_name_suffix();
// - labels: the NodePool template's, the plan's (they win), karpenter.sh/nodepool, and
//   "<group>/<lowercased kind>" = the node class name;
// - annotations: the template's, the NodePool's hash and hash version as the pool carries them
//   (so a new claim is not drifted at birth), karpenter.sh/nodeclaim-min-values-relaxed;
// - requirements with the instance types, requests, taints, startup taints, nodeClassRef (the
//   plan's, else the template's), expireAfter (720h when unset), terminationGracePeriod;
// - an owner reference to the NodePool that blocks its deletion.
// The node class hash is not stamped here: the launch stamps the one it launched with, as
// Karpenter's cloud providers do. Pure.
#include <random>
#include <string>

#include "core/scheduling/provision.hpp"
#include "protocol/kube/karpenter_v1.hpp"

namespace kp::kube {

// Five characters of the API server's generateName alphabet ([a-z0-9] without vowels and
// look-alikes), so our names look like the ones Karpenter's generateName gets.
std::string generated_name_suffix(std::mt19937_64& rng);

node_claim nodeclaim_from_plan(const scheduling::planned_nodeclaim& planned,
                               const scheduling::snapshot& snap, const node_pool& pool,
                               const std::string& name);

}  // namespace kp::kube
