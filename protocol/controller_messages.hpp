#pragma once
// The controller's actor interfaces (DESIGN.md section 2): informers -> cluster_state ->
// snapshots to every reader; pod_watcher -> batcher -> provisioner; one nodeclaim actor per
// NodeClaim under a fleet; termination; garbage collection; leader election; Kubernetes Events.
// Every actor that reads the cluster implements snapshot_listener, so cluster_state can publish
// to all of them through one typed handle. Kubernetes writes go through kp::kube::client from
// inside the actors; their completions come back as messages (actors/continuation.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "protocol/capacity_buffer_messages.hpp"
#include "protocol/cluster_snapshot.hpp"

namespace kp::protocol {

// --- atoms (at most 10 characters) -------------------------------------------------------------
using subscribe_atom = caf::atom_constant<caf::atom("subscribe")>;    // cluster_state: add reader
using snapshot_atom = caf::atom_constant<caf::atom("snapshot")>;      // cluster_state: latest
using leadership_atom = caf::atom_constant<caf::atom("leadership")>;  // leader_elector -> owner
using collect_atom = caf::atom_constant<caf::atom("collect")>;        // garbage_collector: now

// --- cluster_state -----------------------------------------------------------------------------

// Anyone who reads the cluster: receives every published snapshot (a new one replaces the old).
using snapshot_listener = caf::typed_actor<caf::reacts_to<snapshot_ptr>>;

template <class T>
using informer_sink =
    caf::typed_actor<caf::reacts_to<objects_replaced<T>>, caf::reacts_to<object_changed<T>>>;

// Receives informer deltas for every watched kind, coalesces them and publishes immutable
// snapshots to its subscribers (a new subscriber gets the latest at once, when synced).
using cluster_state_actor = caf::typed_actor<
    caf::reacts_to<objects_replaced<kube::pod>>, caf::reacts_to<object_changed<kube::pod>>,
    caf::reacts_to<objects_replaced<kube::node>>, caf::reacts_to<object_changed<kube::node>>,
    caf::reacts_to<objects_replaced<kube::node_claim>>,
    caf::reacts_to<object_changed<kube::node_claim>>,
    caf::reacts_to<objects_replaced<kube::node_pool>>,
    caf::reacts_to<object_changed<kube::node_pool>>,
    caf::reacts_to<objects_replaced<kube::proxmox_node_class>>,
    caf::reacts_to<object_changed<kube::proxmox_node_class>>,
    caf::reacts_to<objects_replaced<kube::proxmox_template>>,
    caf::reacts_to<object_changed<kube::proxmox_template>>,
    caf::reacts_to<objects_replaced<kube::proxmox_unmanaged_template>>,
    caf::reacts_to<object_changed<kube::proxmox_unmanaged_template>>,
    caf::reacts_to<objects_replaced<kube::daemon_set>>,
    caf::reacts_to<object_changed<kube::daemon_set>>,
    caf::reacts_to<objects_replaced<kube::pod_disruption_budget>>,
    caf::reacts_to<object_changed<kube::pod_disruption_budget>>,
    caf::reacts_to<objects_replaced<kube::volume_attachment>>,
    caf::reacts_to<object_changed<kube::volume_attachment>>,
    caf::reacts_to<objects_replaced<kube::secret>>, caf::reacts_to<object_changed<kube::secret>>,
    caf::reacts_to<objects_replaced<kube::capacity_buffer>>,
    caf::reacts_to<object_changed<kube::capacity_buffer>>,
    caf::reacts_to<objects_replaced<kube::pod_template>>,
    caf::reacts_to<object_changed<kube::pod_template>>,
    caf::reacts_to<objects_replaced<kube::node_overlay>>,
    caf::reacts_to<object_changed<kube::node_overlay>>,
    caf::reacts_to<subscribe_atom, snapshot_listener>,
    caf::replies_to<snapshot_atom>::with<snapshot_ptr>>;

// --- provisioning ------------------------------------------------------------------------------

// pod_watcher -> batcher: the provisionable pods (by UID) of the latest snapshot. The batcher
// opens a window on the first new UID; a UID it has seen already does not extend the window.
struct pods_pending {
  std::vector<std::string> uids;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, pods_pending& x) {
  return f(caf::meta::type_name("pods_pending"), x.uids);
}

// batcher -> provisioner: the window closed; schedule every provisionable pod now.
struct batch_closed {
  std::uint64_t id = 0;
  std::size_t pods = 0;        // distinct pods seen in the window
  std::int64_t opened_ms = 0;  // wall clock, for the scheduling-duration metrics
  std::int64_t closed_ms = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, batch_closed& x) {
  return f(caf::meta::type_name("batch_closed"), x.id, x.pods, x.opened_ms, x.closed_ms);
}

using pod_watcher_actor = snapshot_listener;
using batcher_actor = caf::typed_actor<caf::reacts_to<pods_pending>>;
using provisioner_actor =
    caf::typed_actor<caf::reacts_to<snapshot_ptr>, caf::reacts_to<batch_closed>,
                     caf::reacts_to<buffer_pods>>;

// --- NodeClaims, termination, garbage collection -------------------------------------------------

// The fleet spawns one nodeclaim actor per NodeClaim it sees and forwards snapshots to it; the
// nodeclaim actor drives launch -> registered -> initialized (and the timeouts). Termination
// (deletionTimestamp set) belongs to the termination actor.
using nodeclaim_fleet_actor = snapshot_listener;
using nodeclaim_actor = snapshot_listener;
using termination_actor = snapshot_listener;
using garbage_collector_actor =
    caf::typed_actor<caf::reacts_to<snapshot_ptr>, caf::reacts_to<collect_atom>>;
using nodepool_status_actor = snapshot_listener;
using nodeclass_status_actor = snapshot_listener;
using node_overlay_status_actor = snapshot_listener;
using disruption_actor =
    caf::typed_actor<caf::reacts_to<snapshot_ptr>, caf::reacts_to<buffer_pods>>;

// --- leader election ---------------------------------------------------------------------------

// leader_elector -> its owner: true once this replica holds the Lease, false the moment it
// stops holding it (writers must stop at once).
using leadership_listener = caf::typed_actor<caf::reacts_to<leadership_atom, bool>>;
// Asked, it says whether this replica leads right now.
using leader_elector_actor = caf::typed_actor<caf::replies_to<leadership_atom>::with<bool>>;

// --- Kubernetes Events ---------------------------------------------------------------------------

// One Event about one object, as Karpenter records them (reason "Nominated", "Launched",
// "FailedScheduling", "DisruptionBlocked", ...). The recorder de-duplicates repeats within a few
// minutes and never blocks the sender.
struct event_record {
  std::string kind;  // "Pod", "NodeClaim", "Node", "NodePool", "ProxmoxNodeClass"
  std::string api_version;
  std::string namespace_;  // "" for cluster-scoped objects
  std::string name;
  std::string uid;
  std::string type = "Normal";  // Normal or Warning
  std::string reason;
  std::string message;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, event_record& x) {
  return f(caf::meta::type_name("event_record"), x.kind, x.api_version, x.namespace_, x.name, x.uid,
           x.type, x.reason, x.message);
}

using event_recorder_actor = caf::typed_actor<caf::reacts_to<event_record>>;

}  // namespace kp::protocol
