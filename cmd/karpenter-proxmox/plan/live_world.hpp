#pragma once
// The read-only loader of the tools: one consistent look at the cluster and at every Proxmox
// cluster, through the controller's clients and settings, with GETs only. Kubernetes: every kind
// the controller's informers watch, listed once into a protocol::cluster_snapshot (as
// cluster_state publishes it). Proxmox, per region: /cluster/resources, then each online host's
// status and each VM's config (the region actor's inventory reads), into the records the region
// actor keeps (actors/region/inventory.hpp). Every wait has a deadline.
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actors/region/inventory.hpp"
#include "config/clusters_file.hpp"
#include "config/settings.hpp"
#include "core/result.hpp"
#include "protocol/cluster_snapshot.hpp"
#include "protocol/kube/client.hpp"
#include "protocol/proxmox/api.hpp"

namespace kp::plan {

struct region_reading {
  std::string region;
  std::map<std::string, actors::region::host_record> hosts;
  std::map<std::uint32_t, actors::region::vm_record> vms;
  std::string error;  // why the region could not be read ("" when it was)
};

struct live_world {
  protocol::cluster_snapshot snapshot;  // its pods translated from `pods`
  // The pods as the API listed them: the view shows their scheduling conditions' texts, which
  // the snapshot's model pods do not carry.
  protocol::shared_objects<kube::pod> pods;
  std::string cluster_name;  // CLUSTER_NAME, else the kube-system namespace's UID
  std::vector<region_reading> regions;
};

// Lists every watched kind once. `cluster_name` "" reads the kube-system namespace's UID.
result<live_world> read_kubernetes(kube::client& kube, const std::string& cluster_name,
                                   std::chrono::steady_clock::time_point deadline);

// One region's hosts and VMs; a failure is kept in `error` (the region then offers nothing).
region_reading read_region(proxmox::api& api, const std::string& region,
                           std::chrono::steady_clock::time_point deadline);

}  // namespace kp::plan
