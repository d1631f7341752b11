#include "actors/provisioning/batcher.hpp"

#include <unordered_set>

#include <caf/all.hpp>

#include "actors/failure_boundary.hpp"

namespace kp::actors::provisioning {
namespace {

using idle_atom = caf::atom_constant<caf::atom("bidle")>;
using max_atom = caf::atom_constant<caf::atom("bmax")>;

// The public interface plus the two timers: (window generation[, idle generation]).
using batcher_impl =
    protocol::batcher_actor::extend<caf::reacts_to<idle_atom, std::uint64_t, std::uint64_t>,
                                    caf::reacts_to<max_atom, std::uint64_t>>;

struct batcher_state {
  // User-declared, so the state is no aggregate: CAF 0.17 constructs a state from the actor
  // pointer whenever it can, and C++20 would let an aggregate take it as its first member.
  batcher_state() = default;
  bool open = false;
  std::uint64_t window = 0;  // generation of the current (or next) window
  std::uint64_t idle = 0;    // generation of the idle timer within the window
  std::uint64_t next_id = 1;
  std::int64_t opened_ms = 0;
  std::unordered_set<std::string> seen;
  static inline const char* name = "batcher";
};

using batcher_pointer = batcher_impl::stateful_pointer<batcher_state>;

batcher_impl::behavior_type batcher_behavior(batcher_pointer self, controller_context ctx,
                                             protocol::provisioner_actor provisioner) {
  auto shared = std::make_shared<const controller_context>(std::move(ctx));
  auto close = [self, shared, provisioner] {
    auto& st = self->state;
    protocol::batch_closed out;
    out.id = st.next_id++;
    out.pods = st.seen.size();
    out.opened_ms = st.opened_ms;
    out.closed_ms = shared->wall_clock_ms();
    st.open = false;
    ++st.window;
    st.seen.clear();
    self->send(provisioner, out);
  };
  auto boundary = make_boundary("batcher", shared->metrics);
  install_boundary(self, boundary);
  return guarded_behavior<batcher_impl::behavior_type>(
      boundary,
      [self, shared](protocol::pods_pending& msg) {
        auto& st = self->state;
        bool fresh = false;
        for (auto& uid : msg.uids)
          if (st.seen.insert(std::move(uid)).second) fresh = true;
        if (!fresh) return;
        const auto& settings = shared->settings;
        if (!st.open) {
          st.open = true;
          st.opened_ms = shared->wall_clock_ms();
          self->delayed_send(self, settings.batch_max_duration, max_atom::value, st.window);
        }
        ++st.idle;
        self->delayed_send(self, settings.batch_idle_duration, idle_atom::value, st.window,
                           st.idle);
      },
      [self, close](idle_atom, std::uint64_t window, std::uint64_t idle) {
        auto& st = self->state;
        if (st.open && window == st.window && idle == st.idle) close();
      },
      [self, close](max_atom, std::uint64_t window) {
        auto& st = self->state;
        if (st.open && window == st.window) close();
      });
}

}  // namespace

protocol::batcher_actor spawn_batcher(caf::actor_system& system, const controller_context& ctx,
                                      protocol::provisioner_actor provisioner) {
  return system.spawn(batcher_behavior, ctx, std::move(provisioner));
}

}  // namespace kp::actors::provisioning
