#include "actors/provisioning/pod_watcher.hpp"

#include <unordered_map>

#include <caf/all.hpp>

#include "actors/failure_boundary.hpp"
#include "actors/provisioning/provisionable.hpp"

namespace kp::actors::provisioning {
namespace {

using tick_atom = caf::atom_constant<caf::atom("pwtick")>;

// The watcher's own interface: the public one plus its re-evaluation timer.
using watcher_actor = protocol::pod_watcher_actor::extend<caf::reacts_to<tick_atom>>;

struct watcher_state {
  // User-declared, so the state is no aggregate: CAF 0.17 constructs a state from the actor
  // pointer whenever it can, and C++20 would let an aggregate take it as its first member.
  watcher_state() = default;
  protocol::snapshot_ptr latest;
  struct report {
    std::int64_t at_ms = 0;  // wall-clock ms when it was last reported
    std::uint64_t pass = 0;  // the last evaluation that still found the pod provisionable
  };
  // UID -> its last report; forgotten once the pod stops counting. Updated in place, so a
  // pass over many pending pods copies only the UIDs it sends and the ones it sees first.
  std::unordered_map<std::string, report> reported;
  std::uint64_t pass = 0;
  bool tick_armed = false;
  prometheus::Gauge* queue_depth = nullptr;
  static inline const char* name = "pod_watcher";
};

using watcher_pointer = watcher_actor::stateful_pointer<watcher_state>;

void evaluate(watcher_pointer self, const controller_context& ctx,
              const protocol::batcher_actor& batcher, std::chrono::milliseconds retrigger) {
  auto& st = self->state;
  if (!st.latest) return;
  const auto now = ctx.wall_clock_ms();
  auto pods = provisionable_pods(*st.latest);
  const auto pass = ++st.pass;
  protocol::pods_pending out;
  for (const auto* pod : pods) {
    const auto& uid = pod->pod->uid;
    auto [it, first] = st.reported.try_emplace(uid, watcher_state::report{now, pass});
    if (first || now - it->second.at_ms >= retrigger.count()) {
      out.uids.push_back(uid);
      it->second.at_ms = now;
    }
    it->second.pass = pass;
  }
  std::erase_if(st.reported, [pass](const auto& entry) { return entry.second.pass != pass; });
  if (st.queue_depth) st.queue_depth->Set(static_cast<double>(pods.size()));
  if (!out.uids.empty()) self->send(batcher, std::move(out));
  // While anything waits, look again after `retrigger` even if no snapshot arrives.
  if (!st.reported.empty() && !st.tick_armed) {
    st.tick_armed = true;
    self->delayed_send(self, retrigger, tick_atom::value);
  }
}

watcher_actor::behavior_type watcher_behavior(watcher_pointer self, controller_context ctx,
                                              protocol::batcher_actor batcher,
                                              std::chrono::milliseconds retrigger) {
  if (ctx.metrics)
    self->state.queue_depth = &ctx.metrics->scheduler_queue_depth.Add(
        {{"controller", "provisioner"}, {"scheduling_id", ""}});
  auto shared = std::make_shared<const controller_context>(std::move(ctx));
  auto boundary = make_boundary("pod_watcher", shared->metrics);
  install_boundary(self, boundary);
  return guarded_behavior<watcher_actor::behavior_type>(
      boundary,
      [self, shared, batcher, retrigger](protocol::snapshot_ptr& snap) {
        self->state.latest = std::move(snap);
        evaluate(self, *shared, batcher, retrigger);
      },
      [self, shared, batcher, retrigger](tick_atom) {
        self->state.tick_armed = false;
        evaluate(self, *shared, batcher, retrigger);
      });
}

}  // namespace

protocol::pod_watcher_actor spawn_pod_watcher(caf::actor_system& system,
                                              const controller_context& ctx,
                                              protocol::batcher_actor batcher,
                                              std::chrono::milliseconds retrigger) {
  return system.spawn(watcher_behavior, ctx, std::move(batcher), retrigger);
}

}  // namespace kp::actors::provisioning
