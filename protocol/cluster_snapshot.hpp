#pragma once
// The controller's view of the Kubernetes cluster at one moment: every watched object, immutable
// and shared. cluster_state builds a new snapshot from the informers' deltas and publishes it;
// each kind is its own shared map, so a snapshot in which only pods changed shares every other
// map with the previous one. Nothing here is ever mutated after publication, which is what lets
// many actors read one snapshot at once without sharing anything mutable.
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <caf/allowed_unsafe_message_type.hpp>

#include "protocol/chunked_map.hpp"
#include "protocol/kube/apps_v1.hpp"
#include "protocol/kube/autoscaling_v1beta1.hpp"
#include "protocol/kube/core_v1.hpp"
#include "protocol/kube/karpenter_v1.hpp"
#include "protocol/kube/karpenter_v1alpha1.hpp"
#include "protocol/kube/policy_v1.hpp"
#include "protocol/kube/proxmox_v1alpha1.hpp"
#include "protocol/kube/storage_v1.hpp"
#include "protocol/pod_models.hpp"

namespace kp::protocol {

// Objects of one kind by key: "namespace/name" for namespaced kinds, "name" otherwise. Sorted as
// a std::map, and cheap to copy: cluster_state copies a kind's map for every snapshot in which
// the kind changed, and a copy of 100,000 pods shares all but the chunks written since.
template <class T>
using object_map = chunked_map<std::string, std::shared_ptr<const T>>;
template <class T>
using shared_objects = std::shared_ptr<const object_map<T>>;

// The key cluster_state files an object under.
template <class T>
std::string object_key_of(const T& object) {
  if (object.metadata.namespace_.empty()) return object.metadata.name;
  return object.metadata.namespace_ + "/" + object.metadata.name;
}

// Label on the bootstrap token Secrets we create (value: the NodeClaim's name), so one
// label-selected informer sees exactly ours.
inline constexpr const char* bootstrap_token_owner_label =
    "karpenter.proxmox.sinextra.dev/nodeclaim";

// The group our bootstrap tokens put a joining VM in (auth-extra-groups): kubeadm's, which the
// chart binds to system:node-bootstrapper and to the node client CSR auto-approval.
inline constexpr const char* bootstrap_token_group =
    "system:bootstrappers:kubeadm:default-node-token";

struct cluster_snapshot {
  std::uint64_t generation = 0;    // increases with every published snapshot
  std::int64_t taken_unix_ms = 0;  // wall clock when published
  bool synced = false;             // every informer has completed its first list

  // Every pod as its scheduling model, by "namespace/name" (pod_models.hpp): the API objects are
  // not kept.
  shared_pod_models pods;
  shared_objects<kube::node> nodes;
  shared_objects<kube::node_claim> node_claims;
  shared_objects<kube::node_pool> node_pools;
  shared_objects<kube::proxmox_node_class> node_classes;
  shared_objects<kube::proxmox_template> templates;
  shared_objects<kube::proxmox_unmanaged_template> unmanaged_templates;
  shared_objects<kube::daemon_set> daemon_sets;
  shared_objects<kube::pod_disruption_budget> pod_disruption_budgets;
  shared_objects<kube::volume_attachment> volume_attachments;
  // Secrets labelled bootstrap_token_owner_label in the system namespace.
  shared_objects<kube::secret> bootstrap_tokens;
  // CapacityBuffers and PodTemplates: watched only with the CapacityBuffer gate (empty otherwise).
  shared_objects<kube::capacity_buffer> capacity_buffers;
  shared_objects<kube::pod_template> pod_templates;
  // NodeOverlays; always empty while the NodeOverlay feature gate is off (nothing watches them).
  shared_objects<kube::node_overlay> node_overlays;

  // Lookup by key; nullptr when absent (or when the map was never filled).
  template <class T>
  static const T* find(const shared_objects<T>& objects, const std::string& key) {
    if (!objects) return nullptr;
    auto it = objects->find(key);
    return it == objects->end() ? nullptr : it->second.get();
  }
  static const model::pod* find(const shared_pod_models& pods, const std::string& key) {
    if (!pods) return nullptr;
    auto it = pods->find(key);
    return it == pods->end() ? nullptr : it->second.pod.get();
  }
};

using snapshot_ptr = std::shared_ptr<const cluster_snapshot>;

// One informer's report to cluster_state: the whole state of a kind after a (re)list...
template <class T>
struct objects_replaced {
  shared_objects<T> objects;
  // ...in pages, for pods (so that no list of every pod object is held at once): the first page
  // starts the new state, the last one completes it. Other kinds come whole.
  bool first_page = true;
  bool last_page = true;
};

// ...or one change. `deleted` carries the object's last state.
template <class T>
struct object_changed {
  bool deleted = false;
  std::shared_ptr<const T> object;
};

}  // namespace kp::protocol

// Shared immutable pointers: passed between actors in one process only, never serialised.
namespace caf {
template <>
struct allowed_unsafe_message_type<kp::protocol::snapshot_ptr> : std::true_type {};
template <class T>
struct allowed_unsafe_message_type<kp::protocol::objects_replaced<T>> : std::true_type {};
template <class T>
struct allowed_unsafe_message_type<kp::protocol::object_changed<T>> : std::true_type {};
}  // namespace caf
