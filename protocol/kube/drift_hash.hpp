#pragma once
// The two drift hashes, computed in one place; their annotation keys and versions are in
// core/model/drift_hash.hpp. Both are decimal FNV-1a 64 under our own version ("kp-v1").
// - nodepool_hash: what a drift of the NodePool template means: its labels, annotations, taints
//   and startupTaints (as sets), nodeClassRef, expireAfter and terminationGracePeriod.
//   Requirements are not part of it (requirement drift is computed on its own), as in Karpenter.
// - nodeclass_hash: what a running VM cannot take in place. Tags, firewall groups and the pool
//   are synced into running VMs and the placement fields only steer new VMs, so changing them
//   never drifts a node; neither does cloneMode (how a new VM is copied, not what it is);
//   everything else (template, boot disk, kubelet, cloud-init, join, node
//   labels, SSH keys) does.
#include <string>

#include "protocol/kube/karpenter_v1.hpp"
#include "protocol/kube/proxmox_v1alpha1.hpp"

namespace kp::kube {

std::string nodepool_hash(const node_pool& pool);
std::string nodeclass_hash(const proxmox_node_class& node_class);

// True when the object's annotations carry its hash under the current version.
bool nodepool_hash_current(const node_pool& pool);
bool nodeclass_hash_current(const proxmox_node_class& node_class);

}  // namespace kp::kube
