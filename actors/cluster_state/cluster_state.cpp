// The cluster_state actor. Each kind lives in a slot: `current` is what the next snapshot will
// hold; `working` is a private copy we may still write. The first change to a kind after a
// publication copies its map once; later changes in the same interval write that copy; the
// publication freezes it. Kinds that did not change keep the very map the previous snapshot had,
// so readers can compare pointers to see what changed.
#include "actors/cluster_state/cluster_state.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <caf/all.hpp>

#include "actors/failure_boundary.hpp"
#include "observability/karpenter_metrics.hpp"

namespace kp::actors::cluster_state {
namespace {

using namespace kp::protocol;
using publish_atom = caf::atom_constant<caf::atom("publish")>;
using impl_actor =
    cluster_state_actor::extend<caf::reacts_to<publish_atom>,
                                caf::replies_to<subscribers_atom>::with<std::size_t>>;

constexpr const char* nodepool_label = "karpenter.sh/nodepool";
constexpr const char* zone_label = "topology.kubernetes.io/zone";

template <class T>
struct kind_slot {
  shared_objects<T> current = std::make_shared<const object_map<T>>();
  std::shared_ptr<object_map<T>> working;
  bool listed = false;

  object_map<T>& writable() {
    if (!working) {
      working = std::make_shared<object_map<T>>(*current);
      current = working;
    }
    return *working;
  }
  void replace(shared_objects<T> objects) {
    current = objects ? std::move(objects) : std::make_shared<const object_map<T>>();
    working.reset();
    listed = true;
  }
  void apply(const object_changed<T>& change) {
    if (!change.object) return;
    auto key = object_key_of(*change.object);
    if (change.deleted) {
      if (current->count(key) != 0) writable().erase(key);
    } else {
      writable()[key] = change.object;
    }
  }
};

using slots = std::tuple<kind_slot<kube::pod>, kind_slot<kube::node>, kind_slot<kube::node_claim>,
                         kind_slot<kube::node_pool>, kind_slot<kube::proxmox_node_class>,
                         kind_slot<kube::proxmox_template>,
                         kind_slot<kube::proxmox_unmanaged_template>, kind_slot<kube::daemon_set>,
                         kind_slot<kube::pod_disruption_budget>, kind_slot<kube::volume_attachment>,
                         kind_slot<kube::secret>, kind_slot<kube::node_overlay>>;

using label_set = std::map<std::string, std::string>;

struct pod_series {
  label_set labels;
  prometheus::Gauge* gauge = nullptr;
};

struct state {
  // Not an aggregate, so CAF 0.17 does not try to build it from the actor pointer.
  state() = default;
  cluster_state_options options;
  std::shared_ptr<obs::karpenter_metrics> metrics;
  prometheus::Gauge* pending_gauge = nullptr;

  slots kinds;
  snapshot_ptr latest;
  std::vector<snapshot_listener> subscribers;
  bool synced = false;
  std::uint64_t generation = 0;

  std::size_t pending = 0;  // deltas applied since the last publication
  bool publish_scheduled = false;
  bool published_once = false;
  caf::actor_clock::time_point last_publish{};

  // karpenter_pods_state bookkeeping: the series of every live pod, and what to look at again.
  std::unordered_map<std::string, pod_series> pod_metrics;
  std::set<std::string> dirty_pods;
  bool recheck_all_pods = false;

  static inline const char* name = "cluster_state";
};

using self_ptr = impl_actor::stateful_pointer<state>;

template <class T>
kind_slot<T>& slot(state& st) {
  return std::get<kind_slot<T>>(st.kinds);
}

bool every_kind_listed(const state& st) {
  return std::apply([](const auto&... s) { return (s.listed && ...); }, st.kinds);
}

snapshot_ptr build_snapshot(state& st, std::uint64_t generation, bool synced) {
  auto snap = std::make_shared<cluster_snapshot>();
  snap->generation = generation;
  snap->synced = synced;
  snap->taken_unix_ms = st.options.wall_clock_ms();
  snap->pods = slot<kube::pod>(st).current;
  snap->nodes = slot<kube::node>(st).current;
  snap->node_claims = slot<kube::node_claim>(st).current;
  snap->node_pools = slot<kube::node_pool>(st).current;
  snap->node_classes = slot<kube::proxmox_node_class>(st).current;
  snap->templates = slot<kube::proxmox_template>(st).current;
  snap->unmanaged_templates = slot<kube::proxmox_unmanaged_template>(st).current;
  snap->daemon_sets = slot<kube::daemon_set>(st).current;
  snap->pod_disruption_budgets = slot<kube::pod_disruption_budget>(st).current;
  snap->volume_attachments = slot<kube::volume_attachment>(st).current;
  snap->bootstrap_tokens = slot<kube::secret>(st).current;
  snap->node_overlays = slot<kube::node_overlay>(st).current;
  return snap;
}

// ---- karpenter_pods_state ------------------------------------------------------------------

label_set pod_labels(const kube::pod& pod, const object_map<kube::node>& nodes) {
  std::string nodepool, zone;
  if (!pod.spec.node_name.empty()) {
    auto it = nodes.find(pod.spec.node_name);
    if (it != nodes.end()) {
      const auto& labels = it->second->metadata.labels;
      if (auto l = labels.find(nodepool_label); l != labels.end()) nodepool = l->second;
      if (auto l = labels.find(zone_label); l != labels.end()) zone = l->second;
    }
  }
  return {{"name", pod.metadata.name},
          {"namespace", pod.metadata.namespace_},
          {"node", pod.spec.node_name},
          {"nodepool", nodepool},
          {"zone", zone},
          {"phase", pod.status.phase},
          {"scheduled", pod.spec.node_name.empty() ? "false" : "true"}};
}

void drop_pod_series(state& st, const std::string& key) {
  auto it = st.pod_metrics.find(key);
  if (it == st.pod_metrics.end()) return;
  st.metrics->pods_state.Remove(it->second.gauge);
  st.pod_metrics.erase(it);
}

void refresh_pod_series(state& st, const std::string& key, const kube::pod& pod,
                        const object_map<kube::node>& nodes) {
  auto labels = pod_labels(pod, nodes);
  auto it = st.pod_metrics.find(key);
  if (it != st.pod_metrics.end()) {
    if (it->second.labels == labels) return;
    st.metrics->pods_state.Remove(it->second.gauge);
    st.pod_metrics.erase(it);
  }
  auto& gauge = st.metrics->pods_state.Add(labels);
  gauge.Set(1);
  st.pod_metrics.emplace(key, pod_series{std::move(labels), &gauge});
}

// Brings the pod series in line with the pods about to be published: every pod when a node
// changed or the pods were re-listed (a node's labels feed every pod on it), else only those
// that changed. Stale series are removed, so the family holds exactly the live pods.
void update_pod_metrics(state& st) {
  if (!st.metrics) return;
  const auto& pods = *slot<kube::pod>(st).current;
  const auto& nodes = *slot<kube::node>(st).current;
  if (st.recheck_all_pods) {
    for (const auto& [key, pod] : pods) refresh_pod_series(st, key, *pod, nodes);
    std::vector<std::string> gone;
    for (const auto& [key, _] : st.pod_metrics)
      if (pods.count(key) == 0) gone.push_back(key);
    for (const auto& key : gone) drop_pod_series(st, key);
  } else {
    for (const auto& key : st.dirty_pods) {
      auto it = pods.find(key);
      if (it == pods.end()) {
        drop_pod_series(st, key);
      } else {
        refresh_pod_series(st, key, *it->second, nodes);
      }
    }
  }
  st.dirty_pods.clear();
  st.recheck_all_pods = false;
}

// ---- publication -----------------------------------------------------------------------------

void set_pending(state& st, std::size_t value) {
  st.pending = value;
  if (st.pending_gauge != nullptr) st.pending_gauge->Set(static_cast<double>(value));
}

void publish(self_ptr self) {
  auto& st = self->state;
  st.publish_scheduled = false;
  if (!st.synced) return;
  update_pod_metrics(st);
  st.latest = build_snapshot(st, ++st.generation, true);
  // Freeze: the next change to any kind copies its map instead of writing the published one.
  std::apply([](auto&... s) { (s.working.reset(), ...); }, st.kinds);
  st.last_publish = self->clock().now();
  st.published_once = true;
  set_pending(st, 0);
  if (st.metrics) {
    st.metrics->cluster_state_node_count.Add({}).Set(static_cast<double>(st.latest->nodes->size()));
  }
  for (const auto& subscriber : st.subscribers) self->send(subscriber, st.latest);
}

// Publishes once the interval since the last publication has passed: at once (behind whatever
// is already queued, so a burst that arrived together stays one snapshot) or by a timer.
void request_publish(self_ptr self) {
  auto& st = self->state;
  if (st.publish_scheduled) return;
  st.publish_scheduled = true;
  auto now = self->clock().now();
  auto due = st.last_publish + st.options.publish_interval;
  if (!st.published_once || now >= due) {
    self->send(self, publish_atom::value);
  } else {
    self->delayed_send(self, due - now, publish_atom::value);
  }
}

void after_delta(self_ptr self) {
  auto& st = self->state;
  set_pending(st, st.pending + 1);
  if (!st.synced) {
    if (!every_kind_listed(st)) return;
    st.synced = true;
    if (st.metrics) st.metrics->cluster_state_synced.Add({}).Set(1);
  }
  request_publish(self);
}

template <class T>
void note_pod_change(state&, const T&) {}

void note_pod_change(state& st, const objects_replaced<kube::pod>&) {
  if (st.metrics) st.recheck_all_pods = true;
}
void note_pod_change(state& st, const object_changed<kube::pod>& change) {
  if (st.metrics && change.object) st.dirty_pods.insert(object_key_of(*change.object));
}
void note_pod_change(state& st, const objects_replaced<kube::node>&) {
  if (st.metrics) st.recheck_all_pods = true;
}
std::string label_value(const kube::node& node, const char* key) {
  auto it = node.metadata.labels.find(key);
  return it == node.metadata.labels.end() ? std::string() : it->second;
}
// Called before the change is applied, so the slot still holds the node's previous state. Only
// a node that comes, goes or changes the labels the pod series carry makes us look at every
// pod again: status heartbeats, the common case, do not.
void note_pod_change(state& st, const object_changed<kube::node>& change) {
  if (!st.metrics || !change.object) return;
  const auto* before =
      cluster_snapshot::find(slot<kube::node>(st).current, object_key_of(*change.object));
  if (change.deleted || before == nullptr ||
      label_value(*before, nodepool_label) != label_value(*change.object, nodepool_label) ||
      label_value(*before, zone_label) != label_value(*change.object, zone_label)) {
    st.recheck_all_pods = true;
  }
}

template <class T>
auto replaced_handler(self_ptr self) {
  return [self](objects_replaced<T>& message) {
    note_pod_change(self->state, message);
    slot<T>(self->state).replace(std::move(message.objects));
    after_delta(self);
  };
}

template <class T>
auto changed_handler(self_ptr self) {
  return [self](object_changed<T>& message) {
    note_pod_change(self->state, message);
    slot<T>(self->state).apply(message);
    after_delta(self);
  };
}

impl_actor::behavior_type cluster_state_behavior(self_ptr self,
                                                 std::shared_ptr<obs::karpenter_metrics> metrics,
                                                 cluster_state_options options) {
  auto& st = self->state;
  if (!options.wall_clock_ms) {
    options.wall_clock_ms = [] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  }
  st.options = std::move(options);
  st.metrics = std::move(metrics);
  if (st.metrics) {
    st.metrics->cluster_state_synced.Add({}).Set(0);
    st.pending_gauge = &prometheus::BuildGauge()
                            .Name("karpenter_proxmox_actor_queue_depth")
                            .Help(
                                "Requests a sender has in flight to a receiver plus those it "
                                "queues for lack of credit.")
                            .Register(st.metrics->registry)
                            .Add({{"sender", "informers"}, {"receiver", "cluster_state"}});
    st.pending_gauge->Set(0);
  }
  // With the NodeOverlay gate off no informer reports the kind: it is listed, and empty.
  if (!st.options.watch_node_overlays) slot<kube::node_overlay>(st).listed = true;
  st.latest = build_snapshot(st, 0, false);
  auto boundary = make_boundary("cluster_state", st.metrics);
  install_boundary(self, boundary);
  self->set_down_handler([self](caf::down_msg& down) {
    auto& subs = self->state.subscribers;
    subs.erase(
        std::remove_if(subs.begin(), subs.end(),
                       [&](const snapshot_listener& s) { return s.address() == down.source; }),
        subs.end());
  });
  return guarded_behavior<impl_actor::behavior_type>(
      boundary, replaced_handler<kube::pod>(self), changed_handler<kube::pod>(self),
      replaced_handler<kube::node>(self), changed_handler<kube::node>(self),
      replaced_handler<kube::node_claim>(self), changed_handler<kube::node_claim>(self),
      replaced_handler<kube::node_pool>(self), changed_handler<kube::node_pool>(self),
      replaced_handler<kube::proxmox_node_class>(self),
      changed_handler<kube::proxmox_node_class>(self),
      replaced_handler<kube::proxmox_template>(self), changed_handler<kube::proxmox_template>(self),
      replaced_handler<kube::proxmox_unmanaged_template>(self),
      changed_handler<kube::proxmox_unmanaged_template>(self),
      replaced_handler<kube::daemon_set>(self), changed_handler<kube::daemon_set>(self),
      replaced_handler<kube::pod_disruption_budget>(self),
      changed_handler<kube::pod_disruption_budget>(self),
      replaced_handler<kube::volume_attachment>(self),
      changed_handler<kube::volume_attachment>(self), replaced_handler<kube::secret>(self),
      changed_handler<kube::secret>(self), replaced_handler<kube::node_overlay>(self),
      changed_handler<kube::node_overlay>(self),
      [self](subscribe_atom, snapshot_listener listener) {
        auto& state = self->state;
        if (!listener) return;
        auto known = std::any_of(state.subscribers.begin(), state.subscribers.end(),
                                 [&](const snapshot_listener& s) { return s == listener; });
        if (!known) {
          self->monitor(listener);
          state.subscribers.push_back(listener);
        }
        if (state.synced && state.published_once) self->send(listener, state.latest);
      },
      [self](snapshot_atom) -> snapshot_ptr { return self->state.latest; },
      [self](publish_atom) { publish(self); },
      [self](subscribers_atom) -> std::size_t { return self->state.subscribers.size(); });
}

}  // namespace

protocol::cluster_state_actor spawn_cluster_state(caf::actor_system& system,
                                                  std::shared_ptr<obs::karpenter_metrics> metrics,
                                                  cluster_state_options options) {
  auto impl = system.spawn(cluster_state_behavior, std::move(metrics), std::move(options));
  return caf::actor_cast<protocol::cluster_state_actor>(impl);
}

}  // namespace kp::actors::cluster_state
