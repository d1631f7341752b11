#pragma once
// What the NodePool status controller would write, computed from one snapshot and nothing else
// (no CAF, no I/O): the pool's usage (status.resources and status.nodes), its conditions
// (NodeClassReady, ValidationSucceeded, Ready) and its hash annotations. The actor compares the
// result with what the pool already shows and writes only the difference.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "actors/condition_reasons.hpp"
#include "core/model/resource_list.hpp"
#include "protocol/cluster_snapshot.hpp"

namespace kp::actors::nodepool_status {

// The NodeClass kind and group a pool must reference for us to manage it.
inline constexpr const char* nodeclass_group = "karpenter.proxmox.sinextra.dev";
inline constexpr const char* nodeclass_kind = "ProxmoxNodeClass";

// True when the pool's nodeClassRef names a ProxmoxNodeClass (other pools belong to other
// providers and are left alone, as Karpenter's IsManaged does).
bool is_managed(const kube::node_pool& pool);

// The capacity of the pool's machines summed, each machine counted once: a NodeClaim by its
// Node's capacity once registered (its own status.capacity before), a Node labelled with the
// pool but without a NodeClaim by its own. `nodes` is the machine count.
struct pool_usage {
  model::resource_list resources;  // includes "nodes"
  std::int64_t nodes = 0;
};
pool_usage usage_of(const std::string& pool, const protocol::cluster_snapshot& snapshot);

// Problems with the pool that Karpenter's runtime validation reports (restricted label domains,
// requirement operators and values, taint effects, weight); empty when it is valid.
std::vector<std::string> validate(const kube::node_pool& pool);

// The status the pool should have. Conditions other than ours are kept; a condition whose
// status does not change keeps its lastTransitionTime.
kube::node_pool_status desired_status(const kube::node_pool& pool,
                                      const protocol::cluster_snapshot& snapshot,
                                      std::int64_t now_unix_ms);

// Same status as far as a write is concerned: quantities compared by amount, conditions by type
// (in any order), lastTransitionTime ignored.
bool equivalent(const kube::node_pool_status& a, const kube::node_pool_status& b);

// Merge-patch bodies: {"status":{...}} for the status subresource (resources that disappeared
// are removed with null) and the annotations for the hash (protocol/kube/drift_hash.hpp).
std::string status_patch(const kube::node_pool_status& current,
                         const kube::node_pool_status& desired);
std::string hash_patch(const kube::node_pool& pool);

}  // namespace kp::actors::nodepool_status
