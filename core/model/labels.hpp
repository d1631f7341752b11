#pragma once
// Well-known label, annotation and taint names shared by Kubernetes, Karpenter and the Proxmox
// provider. One place so that the scheduler, the API translation and the actors agree.
#include <string_view>

#include "core/model/drift_hash.hpp"  // the hash annotation keys

namespace kp::model::labels {

inline constexpr std::string_view hostname = "kubernetes.io/hostname";
inline constexpr std::string_view zone = "topology.kubernetes.io/zone";
inline constexpr std::string_view region = "topology.kubernetes.io/region";
inline constexpr std::string_view instance_type = "node.kubernetes.io/instance-type";
inline constexpr std::string_view arch = "kubernetes.io/arch";
inline constexpr std::string_view os = "kubernetes.io/os";
inline constexpr std::string_view windows_build = "node.kubernetes.io/windows-build";
inline constexpr std::string_view capacity_type = "karpenter.sh/capacity-type";
inline constexpr std::string_view nodepool = "karpenter.sh/nodepool";
inline constexpr std::string_view initialized = "karpenter.sh/initialized";
inline constexpr std::string_view registered = "karpenter.sh/registered";
inline constexpr std::string_view instance_family =
    "karpenter.proxmox.sinextra.dev/instance-family";
inline constexpr std::string_view nodeclass = "karpenter.proxmox.sinextra.dev/proxmoxnodeclass";
// Karpenter's ReservationIDLabel for this provider: which reservation a reserved VM draws on.
inline constexpr std::string_view reservation_id = "karpenter.proxmox.sinextra.dev/reservation-id";

// Deprecated aliases that Kubernetes and Karpenter normalise to the stable keys.
inline constexpr std::string_view beta_zone = "failure-domain.beta.kubernetes.io/zone";
inline constexpr std::string_view beta_region = "failure-domain.beta.kubernetes.io/region";
inline constexpr std::string_view beta_arch = "beta.kubernetes.io/arch";
inline constexpr std::string_view beta_os = "beta.kubernetes.io/os";
inline constexpr std::string_view beta_instance_type = "beta.kubernetes.io/instance-type";

inline constexpr std::string_view capacity_type_on_demand = "on-demand";
inline constexpr std::string_view capacity_type_spot = "spot";
inline constexpr std::string_view capacity_type_reserved = "reserved";

}  // namespace kp::model::labels

namespace kp::model::annotations {
inline constexpr std::string_view do_not_disrupt = "karpenter.sh/do-not-disrupt";
inline constexpr std::string_view min_values_relaxed = "karpenter.sh/nodeclaim-min-values-relaxed";
}  // namespace kp::model::annotations

namespace kp::model::taint_keys {
inline constexpr std::string_view unregistered = "karpenter.sh/unregistered";
inline constexpr std::string_view disrupted = "karpenter.sh/disrupted";
inline constexpr std::string_view not_ready = "node.kubernetes.io/not-ready";
inline constexpr std::string_view unreachable = "node.kubernetes.io/unreachable";
inline constexpr std::string_view uninitialized = "node.cloudprovider.kubernetes.io/uninitialized";
inline constexpr std::string_view readiness_prefix = "readiness.k8s.io/";
}  // namespace kp::model::taint_keys
