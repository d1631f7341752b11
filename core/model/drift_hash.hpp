#pragma once
// The drift hashes' annotation keys and versions, declared once. The NodePool hash is
// Karpenter's key under our own algorithm; the node class hash is the Proxmox provider's. Both
// versions are ours ("kp-v1", not Karpenter's "v3"): the hashes are not comparable with
// Karpenter's, and a version change re-stamps NodeClaims instead of rolling them.
// protocol/kube/drift_hash.hpp computes the hashes.
#include <string_view>

namespace kp::model::annotations {
inline constexpr std::string_view nodepool_hash = "karpenter.sh/nodepool-hash";
inline constexpr std::string_view nodepool_hash_version = "karpenter.sh/nodepool-hash-version";
inline constexpr std::string_view nodeclass_hash = "karpenter.proxmox.sinextra.dev/nodeclass-hash";
inline constexpr std::string_view nodeclass_hash_version =
    "karpenter.proxmox.sinextra.dev/nodeclass-hash-version";
}  // namespace kp::model::annotations

namespace kp::model::drift_hash_versions {
inline constexpr std::string_view nodepool = "kp-v1";
inline constexpr std::string_view nodeclass = "kp-v1";
}  // namespace kp::model::drift_hash_versions
