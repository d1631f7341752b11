// The cluster_state actor. Each kind lives in a slot: `current` is what the next snapshot will
// hold; `working` is a private copy we may still write. The first change to a kind after a
// publication copies its map once (a chunked_map: the copy shares every chunk, and a write copies
// only the chunk it touches); later changes in the same interval write that copy; the
// publication freezes it. Kinds that did not change keep the very map the previous snapshot had,
// so readers can compare pointers to see what changed.
#include "actors/cluster_state/cluster_state.hpp"

#include <algorithm>
#include <charconv>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <caf/all.hpp>

#include "actors/cluster_state/pod_state_series.hpp"
#include "actors/failure_boundary.hpp"
#include "observability/karpenter_metrics.hpp"

namespace kp::actors::cluster_state {
namespace {

using namespace kp::protocol;
using publish_atom = caf::atom_constant<caf::atom("publish")>;
using impl_actor =
    cluster_state_actor::extend<caf::reacts_to<publish_atom>,
                                caf::replies_to<subscribers_atom>::with<std::size_t>>;

// resourceVersions are opaque to clients, but numeric on every API server we know; the newest
// one a snapshot holds is exported for diagnosis (how far behind the API the snapshots are).
std::uint64_t resource_version_number(const std::string& text) {
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && p == text.data() + text.size() ? v : 0;
}

template <class T>
struct kind_slot {
  shared_objects<T> current = std::make_shared<const object_map<T>>();
  std::shared_ptr<object_map<T>> working;
  bool listed = false;
  std::uint64_t newest_rv = 0;
  // Time spent copying maps since the last publication: part of what a snapshot costs.
  std::chrono::steady_clock::duration copying{};

  object_map<T>& writable() {
    if (!working) {
      auto t0 = std::chrono::steady_clock::now();
      working = std::make_shared<object_map<T>>(*current);
      copying += std::chrono::steady_clock::now() - t0;
      current = working;
    }
    return *working;
  }
  void replace(shared_objects<T> objects) {
    current = objects ? std::move(objects) : std::make_shared<const object_map<T>>();
    working.reset();
    listed = true;
    for (const auto& [key, object] : *current)
      newest_rv = std::max(newest_rv, resource_version_number(object->metadata.resource_version));
  }
  void apply(const object_changed<T>& change) {
    if (!change.object) return;
    newest_rv =
        std::max(newest_rv, resource_version_number(change.object->metadata.resource_version));
    auto key = object_key_of(*change.object);
    if (change.deleted) {
      if (current->count(key) != 0) writable().erase(key);
    } else {
      writable()[key] = change.object;
    }
  }
};

// The pods, held only as their scheduling models (pod_models.hpp): a pod object is translated
// once, when it arrives, and dropped; a relist that repeats an object (same uid and
// resourceVersion) keeps its model. Models of pods whose objects share a template part share its
// translation (`parts`). A list arrives a page at a time and becomes the state at its last page.
struct pod_slot {
  shared_pod_models current = std::make_shared<const pod_model_map>();
  std::shared_ptr<pod_model_map> working;
  std::shared_ptr<pod_model_map> listing;  // the pages of a list so far
  kube::pod_part_models parts;
  bool listed = false;
  std::uint64_t newest_rv = 0;
  std::chrono::steady_clock::duration copying{};

  pod_model_map& writable() {
    if (!working) {
      auto t0 = std::chrono::steady_clock::now();
      working = std::make_shared<pod_model_map>(*current);
      copying += std::chrono::steady_clock::now() - t0;
      current = working;
    }
    return *working;
  }
  pod_model kept_or_translated(const std::string& key, const kube::pod& object) {
    const auto& rv = object.metadata.resource_version;
    auto known = current->find(key);
    if (known != current->end() && !rv.empty() && known->second.resource_version == rv &&
        known->second.pod->uid == object.metadata.uid)
      return known->second;
    return translated(object, &parts);
  }
  void list_page(const objects_replaced<kube::pod>& page) {
    if (page.first_page || !listing) listing = std::make_shared<pod_model_map>();
    if (page.objects) {
      for (const auto& [key, object] : *page.objects) {
        newest_rv = std::max(newest_rv, resource_version_number(object->metadata.resource_version));
        listing->insert_or_assign(key, kept_or_translated(key, *object));
      }
    }
    if (!page.last_page) return;
    current = std::move(listing);
    listing.reset();
    working.reset();
    listed = true;
  }
  void apply(const object_changed<kube::pod>& change) {
    if (!change.object) return;
    newest_rv =
        std::max(newest_rv, resource_version_number(change.object->metadata.resource_version));
    auto key = object_key_of(*change.object);
    if (change.deleted) {
      if (current->count(key) != 0) writable().erase(key);
    } else {
      writable().insert_or_assign(std::move(key), translated(*change.object, &parts));
    }
  }
};

using slots =
    std::tuple<kind_slot<kube::node>, kind_slot<kube::node_claim>, kind_slot<kube::node_pool>,
               kind_slot<kube::proxmox_node_class>, kind_slot<kube::proxmox_template>,
               kind_slot<kube::proxmox_unmanaged_template>, kind_slot<kube::daemon_set>,
               kind_slot<kube::pod_disruption_budget>, kind_slot<kube::volume_attachment>,
               kind_slot<kube::secret>, kind_slot<kube::capacity_buffer>,
               kind_slot<kube::pod_template>, kind_slot<kube::node_overlay>>;

struct state {
  // Not an aggregate, so CAF 0.17 does not try to build it from the actor pointer.
  state() = default;
  cluster_state_options options;
  std::shared_ptr<obs::karpenter_metrics> metrics;
  prometheus::Gauge* pending_gauge = nullptr;
  prometheus::Histogram* build_duration = nullptr;
  prometheus::Family<prometheus::Gauge>* resource_versions = nullptr;

  pod_slot pods;
  slots kinds;
  snapshot_ptr latest;
  std::vector<snapshot_listener> subscribers;
  bool synced = false;
  std::uint64_t generation = 0;

  std::size_t pending = 0;  // deltas applied since the last publication
  bool publish_scheduled = false;
  bool published_once = false;
  caf::actor_clock::time_point last_publish{};
  // What the last publication cost, map copies included (options.max_publish_interval).
  std::chrono::steady_clock::duration last_build_cost{};

  static inline const char* name = "cluster_state";
};

using self_ptr = impl_actor::stateful_pointer<state>;

template <class T>
kind_slot<T>& slot(state& st) {
  return std::get<kind_slot<T>>(st.kinds);
}

bool every_kind_listed(const state& st) {
  return st.pods.listed && std::apply([](const auto&... s) { return (s.listed && ...); }, st.kinds);
}

snapshot_ptr build_snapshot(state& st, std::uint64_t generation, bool synced) {
  auto snap = std::make_shared<cluster_snapshot>();
  snap->generation = generation;
  snap->synced = synced;
  snap->taken_unix_ms = st.options.wall_clock_ms();
  snap->pods = st.pods.current;
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
  snap->capacity_buffers = slot<kube::capacity_buffer>(st).current;
  snap->pod_templates = slot<kube::pod_template>(st).current;
  snap->node_overlays = slot<kube::node_overlay>(st).current;
  return snap;
}

// ---- publication -----------------------------------------------------------------------------

void set_pending(state& st, std::size_t value) {
  st.pending = value;
  if (st.pending_gauge != nullptr) st.pending_gauge->Set(static_cast<double>(value));
}

void export_resource_version(state& st, std::string kind, std::uint64_t newest) {
  if (st.resource_versions == nullptr || newest == 0) return;
  st.resource_versions->Add({{"kind", std::move(kind)}}).Set(static_cast<double>(newest));
}

void publish(self_ptr self) {
  auto& st = self->state;
  st.publish_scheduled = false;
  if (!st.synced) return;
  const auto started = std::chrono::steady_clock::now();
  st.latest = build_snapshot(st, ++st.generation, true);
  // karpenter_pods_state: the pods of this snapshot from now on, made into series when scraped.
  if (st.metrics) st.metrics->pods_state->set(pod_state_series(st.latest->pods, st.latest->nodes));
  // Freeze: the next change to any kind copies its map instead of writing the published one.
  std::chrono::steady_clock::duration copying{};
  auto freeze = [&](auto& s) {
    s.working.reset();
    copying += s.copying;
    s.copying = {};
  };
  freeze(st.pods);
  std::apply([&](auto&... s) { (freeze(s), ...); }, st.kinds);
  st.last_build_cost = std::chrono::steady_clock::now() - started + copying;
  if (st.build_duration != nullptr) {
    st.build_duration->Observe(std::chrono::duration<double>(st.last_build_cost).count());
  }
  export_resource_version(st, std::string(kube::pod::resource.plural), st.pods.newest_rv);
  std::apply(
      [&]<class... T>(const kind_slot<T>&... s) {
        (export_resource_version(st, std::string(T::resource.plural), s.newest_rv), ...);
      },
      st.kinds);
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
  const auto stretched = std::min<std::chrono::steady_clock::duration>(
      st.last_build_cost * 8, st.options.max_publish_interval);
  const auto interval =
      std::max<std::chrono::steady_clock::duration>(st.options.publish_interval, stretched);
  auto due = st.last_publish + std::chrono::duration_cast<caf::timespan>(interval);
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
auto replaced_handler(self_ptr self) {
  return [self](objects_replaced<T>& message) {
    if constexpr (std::is_same_v<T, kube::pod>) {
      self->state.pods.list_page(message);
      if (!message.last_page) return;  // the state is not complete yet
    } else {
      slot<T>(self->state).replace(std::move(message.objects));
    }
    after_delta(self);
  };
}

template <class T>
auto changed_handler(self_ptr self) {
  return [self](object_changed<T>& message) {
    if constexpr (std::is_same_v<T, kube::pod>)
      self->state.pods.apply(message);
    else
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
  // Kinds nobody watches are empty from the start, so they never hold back synced.
  if (!st.options.capacity_buffers) {
    slot<kube::capacity_buffer>(st).listed = true;
    slot<kube::pod_template>(st).listed = true;
  }
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
    st.build_duration =
        &prometheus::BuildHistogram()
             .Name("karpenter_proxmox_cluster_state_snapshot_build_duration_seconds")
             .Help(
                 "Time to build one published cluster snapshot from the deltas since the "
                 "previous one (map copies and the snapshot itself).")
             .Register(st.metrics->registry)
             .Add({}, prometheus::Histogram::BucketBoundaries{0.0001, 0.00025, 0.0005, 0.001,
                                                              0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                              0.25, 0.5, 1});
    st.resource_versions = &prometheus::BuildGauge()
                                .Name("karpenter_proxmox_cluster_state_resource_version")
                                .Help(
                                    "The newest resourceVersion of each kind in the latest "
                                    "published snapshot (when the API server's are numeric).")
                                .Register(st.metrics->registry);
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
      changed_handler<kube::secret>(self), replaced_handler<kube::capacity_buffer>(self),
      changed_handler<kube::capacity_buffer>(self), replaced_handler<kube::pod_template>(self),
      changed_handler<kube::pod_template>(self), replaced_handler<kube::node_overlay>(self),
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
  return impl;  // the declared interface, a subset of the actor's own
}

}  // namespace kp::actors::cluster_state
