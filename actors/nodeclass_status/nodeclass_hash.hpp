#pragma once
// The ProxmoxNodeClass hash that drift compares (karpenter.proxmox.sinextra.dev/nodeclass-hash):
// what a running VM cannot take in place. Tags, firewall groups and the pool are synced into
// running VMs and the placement fields only steer new VMs, so changing them never drifts a node;
// everything else (template, boot disk, kubelet, cloud-init, join, node labels, SSH keys) does.
// Our own algorithm (FNV-1a 64 over the encoded spec) under our own version, so a version change
// re-stamps NodeClaims instead of rolling them.
#include <string>

#include "protocol/kube/proxmox_v1alpha1.hpp"

namespace kp::actors::nodeclass_status {

inline constexpr const char* nodeclass_hash_version = "kp-v1";

std::string nodeclass_hash(const kube::proxmox_node_class& node_class);

// True when the node class carries nodeclass_hash() under nodeclass_hash_version.
bool nodeclass_hash_current(const kube::proxmox_node_class& node_class);

}  // namespace kp::actors::nodeclass_status
