// The informer actors. The reflector's callbacks run on io threads; each one is bounced into its
// actor as a `resume` continuation (actors/continuation.hpp), so the object map is only touched
// inside the actor. The callbacks hold only a weak reference: an informer nobody references
// terminates, and its termination stops the watch.
#include "actors/cluster_state/informer.hpp"

#include <cstdint>
#include <type_traits>
#include <utility>

#include <caf/all.hpp>

#include "actors/cluster_state/kept_fields.hpp"
#include "actors/continuation.hpp"
#include "actors/failure_boundary.hpp"
#include "observability/logging.hpp"
#include "protocol/kube/informer.hpp"

namespace kp::actors::cluster_state {
namespace {

using resync_atom = caf::atom_constant<caf::atom("resync")>;
using informer_actor = caf::typed_actor<caf::reacts_to<resume_atom, continuation>,
                                        caf::reacts_to<resync_atom, std::uint64_t>>;

// Pods are kept by cluster_state only, as their models: the pod informer holds no map (its list
// goes to cluster_state a page at a time) and has nothing to resync; a resync would repeat what
// cluster_state already holds, since it applies exactly what this informer sends.
template <class T>
constexpr bool informer_keeps_objects = !std::is_same_v<T, kube::pod>;

template <class T>
struct informer_state {
  // Declared so the state is no aggregate: CAF 0.17 would otherwise construct it from the
  // actor pointer (C++20 parenthesised aggregate initialisation).
  informer_state() = default;
  protocol::informer_sink<T> sink;
  protocol::object_map<T> objects;
  std::shared_ptr<kube::watch_handle> watch;
  std::chrono::milliseconds resync_period{0};
  std::uint64_t resync_generation = 0;
  bool listed = false;
  static inline const char* name = "informer";
};

template <class T>
using self_ptr = informer_actor::stateful_pointer<informer_state<T>>;

// Runs `work` inside the informer if it still exists; `subject` names what it is for.
void post(const caf::weak_actor_ptr& weak, std::function<void()> work, std::string subject) {
  if (auto strong = weak.lock()) {
    caf::anon_send(caf::actor_cast<informer_actor>(strong), resume_atom::value,
                   continuation{std::move(work), std::move(subject)});
  }
}

template <class T>
void send_whole_map(self_ptr<T> self) {
  auto& st = self->state;
  auto copy = std::make_shared<const protocol::object_map<T>>(st.objects);
  self->send(st.sink, protocol::objects_replaced<T>{std::move(copy)});
}

template <class T>
void arm_resync(self_ptr<T> self) {
  auto& st = self->state;
  if (st.resync_period.count() <= 0) return;
  self->delayed_send(self, st.resync_period, resync_atom::value, ++st.resync_generation);
}

template <class T>
protocol::object_map<T> keyed(std::vector<std::shared_ptr<const T>> items) {
  protocol::object_map<T> out;
  for (auto& object : items) out.emplace(protocol::object_key_of(*object), std::move(object));
  return out;
}

template <class T>
void on_replace(self_ptr<T> self, std::vector<std::shared_ptr<const T>> items) {
  auto& st = self->state;
  if constexpr (!informer_keeps_objects<T>) {
    // The pages went ahead (on_list_page); this ends the list.
    self->send(st.sink, protocol::objects_replaced<T>{nullptr, false, true});
    return;
  }
  st.objects = keyed(std::move(items));
  st.listed = true;
  send_whole_map(self);
  // A (re)list is as good as a resync: the next one is a full period away.
  arm_resync(self);
}

template <class T>
void on_list_page(self_ptr<T> self, std::vector<std::shared_ptr<const T>> items, bool first) {
  auto page = std::make_shared<const protocol::object_map<T>>(keyed(std::move(items)));
  self->send(self->state.sink, protocol::objects_replaced<T>{std::move(page), first, false});
}

template <class T>
void on_event(self_ptr<T> self, bool deleted, std::shared_ptr<const T> object) {
  auto& st = self->state;
  if constexpr (informer_keeps_objects<T>) {
    auto key = protocol::object_key_of(*object);
    if (deleted) {
      st.objects.erase(key);
    } else {
      st.objects[key] = object;
    }
  }
  self->send(st.sink, protocol::object_changed<T>{deleted, std::move(object)});
}

template <class T>
informer_actor::behavior_type informer_behavior(
    self_ptr<T> self, std::shared_ptr<kube::client> client, protocol::informer_sink<T> sink,
    std::string namespace_, kube::reflector_options reflector,
    std::chrono::milliseconds resync_period, std::shared_ptr<obs::karpenter_metrics> metrics) {
  auto& st = self->state;
  const std::string kind(T::resource.kind);
  auto boundary = make_boundary("informer." + std::string(T::resource.plural), metrics);
  install_boundary(self, boundary);
  st.sink = std::move(sink);
  st.resync_period = resync_period;
  caf::weak_actor_ptr weak = self->ctrl();
  auto log = std::make_shared<obs::logger>("informer." + std::string(T::resource.plural));
  kube::informer_callbacks<T> callbacks;
  // `self` travels through the io thread untouched: it is dereferenced only when the
  // continuation runs inside the actor, which means the actor is alive.
  callbacks.keep = object_keeper<T>();
  callbacks.on_replace = [weak, self, kind](std::vector<std::shared_ptr<const T>> items,
                                            const std::string&) {
    post(
        weak, [self, items = std::move(items)]() mutable { on_replace<T>(self, std::move(items)); },
        "the list of every " + kind);
  };
  if constexpr (!informer_keeps_objects<T>) {
    callbacks.on_list_page = [weak, self, kind](std::vector<std::shared_ptr<const T>> items,
                                                bool first) {
      post(
          weak,
          [self, items = std::move(items), first]() mutable {
            on_list_page<T>(self, std::move(items), first);
          },
          "a page of the list of every " + kind);
    };
  }
  callbacks.on_event = [weak, self, kind](std::string_view type, T object) {
    bool deleted = type == "DELETED";
    auto shared = std::make_shared<const T>(std::move(object));
    std::string subject = kind + " " + protocol::object_key_of(*shared);
    post(
        weak,
        [self, deleted, shared = std::move(shared)]() mutable {
          on_event<T>(self, deleted, std::move(shared));
        },
        std::move(subject));
  };
  callbacks.on_error = [log](const kp::error& e) {
    // The reflector retries by itself; this is for the logs only. 410 Expired is routine (the
    // server's history moved on) and answered by a re-list.
    if (e.code == "expired") {
      log->info("watch expired, re-listing", {{"error", e.message}});
    } else {
      log->warn("watch failed, retrying", {{"code", e.code}, {"error", e.message}});
    }
  };
  st.watch = kube::start_informer<T>(*client, namespace_, reflector, std::move(callbacks));
  self->attach_functor([watch = st.watch] { watch->stop(); });
  // Nobody to report to: stop watching.
  self->monitor(st.sink);
  self->set_down_handler([self](caf::down_msg&) { self->quit(caf::exit_reason::user_shutdown); });
  return guarded_behavior<informer_actor::behavior_type>(
      boundary, [boundary](resume_atom, continuation& c) { boundary->run(c); },
      [self](resync_atom, std::uint64_t generation) {
        auto& state = self->state;
        if (generation != state.resync_generation || !state.listed) return;
        send_whole_map(self);
        arm_resync(self);
      });
}

}  // namespace

template <class T>
caf::actor spawn_informer(caf::actor_system& system, std::shared_ptr<kube::client> client,
                          protocol::informer_sink<T> sink, std::string namespace_,
                          kube::reflector_options reflector,
                          std::chrono::milliseconds resync_period,
                          std::shared_ptr<obs::karpenter_metrics> metrics) {
  auto handle =
      system.spawn(&informer_behavior<T>, std::move(client), std::move(sink), std::move(namespace_),
                   std::move(reflector), resync_period, std::move(metrics));
  return caf::actor_cast<caf::actor>(handle);
}

#define KP_INFORMER_KIND(T)                                                                 \
  template caf::actor spawn_informer<T>(caf::actor_system&, std::shared_ptr<kube::client>,  \
                                        protocol::informer_sink<T>, std::string,            \
                                        kube::reflector_options, std::chrono::milliseconds, \
                                        std::shared_ptr<obs::karpenter_metrics>);
KP_INFORMER_KIND(kube::pod)
KP_INFORMER_KIND(kube::node)
KP_INFORMER_KIND(kube::node_claim)
KP_INFORMER_KIND(kube::node_pool)
KP_INFORMER_KIND(kube::proxmox_node_class)
KP_INFORMER_KIND(kube::proxmox_template)
KP_INFORMER_KIND(kube::proxmox_unmanaged_template)
KP_INFORMER_KIND(kube::daemon_set)
KP_INFORMER_KIND(kube::pod_disruption_budget)
KP_INFORMER_KIND(kube::volume_attachment)
KP_INFORMER_KIND(kube::secret)
KP_INFORMER_KIND(kube::capacity_buffer)
KP_INFORMER_KIND(kube::pod_template)
KP_INFORMER_KIND(kube::node_overlay)
#undef KP_INFORMER_KIND

std::vector<caf::actor> spawn_informers(caf::actor_system& system,
                                        std::shared_ptr<kube::client> client,
                                        protocol::cluster_state_actor sink,
                                        const informer_options& options) {
  std::vector<caf::actor> out;
  auto add = [&]<class T>(std::string namespace_, kube::reflector_options reflector) {
    out.push_back(spawn_informer<T>(system, client, protocol::informer_sink<T>{sink},
                                    std::move(namespace_), std::move(reflector),
                                    options.resync_period, options.metrics));
  };
  const auto& all = options.reflector;
  add.operator()<kube::pod>("", all);
  add.operator()<kube::node>("", all);
  add.operator()<kube::node_claim>("", all);
  add.operator()<kube::node_pool>("", all);
  add.operator()<kube::proxmox_node_class>("", all);
  add.operator()<kube::proxmox_template>("", all);
  add.operator()<kube::proxmox_unmanaged_template>("", all);
  add.operator()<kube::daemon_set>("", all);
  add.operator()<kube::pod_disruption_budget>("", all);
  add.operator()<kube::volume_attachment>("", all);
  // Only our bootstrap token Secrets: the label exists on exactly the ones we created.
  auto tokens = all;
  tokens.label_selector = protocol::bootstrap_token_owner_label;
  add.operator()<kube::secret>(options.system_namespace, tokens);
  if (options.capacity_buffers) {
    add.operator()<kube::capacity_buffer>("", all);
    add.operator()<kube::pod_template>("", all);
  }
  if (options.watch_node_overlays) add.operator()<kube::node_overlay>("", all);
  return out;
}

}  // namespace kp::actors::cluster_state
