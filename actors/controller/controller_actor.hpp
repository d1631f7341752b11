#pragma once
// The controller actor: the root of the product's actors (DESIGN.md section 2). It resolves who
// this cluster is (CLUSTER_NAME defaults to the kube-system namespace's UID; the API server's
// version for cloud-init), then spawns the region actors, cluster_state with its informers and
// the event recorder, and takes part in leader election. Only while it leads does it run the
// actors that write (provisioning, NodeClaim lifecycle, status, termination, garbage collection,
// disruption); the moment leadership is lost they are stopped. If any child fails, the
// controller stops with it and its supervisor starts a fresh one, which converges from the
// cluster and Proxmox (the truth lives there, not in memory).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "config/clusters_file.hpp"
#include "config/settings.hpp"
#include "core/instance_types/instance_type.hpp"
#include "core/topology/node_settings.hpp"
#include "observability/karpenter_metrics.hpp"
#include "protocol/kube/client.hpp"
#include "protocol/proxmox/api.hpp"

namespace kp::actors {

struct controller_inputs {
  config::settings settings;
  config::clusters_file clusters;
  std::shared_ptr<kube::client> kube;
  // Own clients (own rate limiters) for Events and the leader Lease, so a flood of Events never
  // delays a NodeClaim write and a busy controller never misses a Lease renewal (client-go
  // keeps them apart too). Null: `kube` serves.
  std::shared_ptr<kube::client> events_kube;
  std::shared_ptr<kube::client> lease_kube;
  // By region: each goes to that region's actor, the one door to Proxmox (cmd builds them).
  std::map<std::string, std::shared_ptr<proxmox::api>> proxmox;
  std::shared_ptr<obs::karpenter_metrics> metrics;
  topology::node_settings_file node_settings;  // NODE_SETTING_FILE, loaded once at start
  // Instance types for every NodePool (config::load_instance_types: INSTANCE_TYPES_FILE or the
  // built-in list, memory overhead applied), loaded once at start.
  std::vector<instance_types::instance_type> instance_types;
  std::string identity;  // this replica's leader-election identity (hostname + random)
};

caf::actor spawn_controller(caf::actor_system& system, controller_inputs inputs);

}  // namespace kp::actors
