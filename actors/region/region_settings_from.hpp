#pragma once
// The region actor's settings from the operator settings and one entry of the clusters file, so
// PROXMOX_VMID, PROXMOX_MAX_INFLIGHT, the per-operation task waits and the credentials' power
// (root may pin CPUs), NODE_POLICY and NODE_SETTING_FILE reach the actor in one place.
#include <string>

#include "actors/region/region_actor.hpp"
#include "config/clusters_file.hpp"
#include "config/settings.hpp"

namespace kp::actors::region {

// `cluster_name` is CLUSTER_NAME once resolved (the kube-system namespace UID by default).
region_settings region_settings_from(const config::settings& settings,
                                     const config::proxmox_cluster& cluster,
                                     std::string cluster_name);

// The same, with NODE_SETTING_FILE as loaded once at start (config::load_node_settings_file).
// A file without entries (no NODE_SETTING_FILE) leaves `node_settings` empty.
region_settings region_settings_from(const config::settings& settings,
                                     const config::proxmox_cluster& cluster,
                                     std::string cluster_name,
                                     const topology::node_settings_file& node_settings);

}  // namespace kp::actors::region
