#pragma once
// The region actor's settings from the operator settings and one entry of the clusters file, so
// PROXMOX_VMID, PROXMOX_MAX_INFLIGHT, the per-operation task waits and the credentials' power
// (root may pin CPUs) reach the actor in one place.
#include <string>

#include "actors/region/region_actor.hpp"
#include "config/clusters_file.hpp"
#include "config/settings.hpp"

namespace kp::actors::region {

// `cluster_name` is CLUSTER_NAME once resolved (the kube-system namespace UID by default).
region_settings region_settings_from(const config::settings& settings,
                                     const config::proxmox_cluster& cluster,
                                     std::string cluster_name);

}  // namespace kp::actors::region
