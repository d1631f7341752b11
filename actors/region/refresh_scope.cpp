// The inventory refresh's scope (region_state.hpp): how a refresh ends, once, whatever throws in
// its continuations, so that the region never waits for a refresh that cannot finish.
#include <exception>
#include <set>
#include <string>

#include "actors/region/region_state.hpp"
#include "protocol/transport/failure_report.hpp"

namespace kp::actors::region {

namespace {

constexpr const char* subject = "inventory refresh";

// Runs `f`; a throw is reported (log line, karpenter_proxmox_actor_failures_total) and returns
// its message, "" when `f` completed.
template <class F>
std::string contained(region_state& st, F&& f) {
  try {
    std::forward<F>(f)();
    return "";
  } catch (...) {
    auto failure = std::current_exception();
    if (st.boundary) st.boundary->report(subject, failure);
    return transport::describe(failure);
  }
}

}  // namespace

void run_for_refresh(self_ptr self, std::uint64_t generation, const std::function<void()>& f) {
  auto& st = self->state;
  auto fault = contained(st, f);
  if (fault.empty() || !st.refreshing || st.refresh_generation != generation) return;
  finish_refresh(self, "internal: the refresh failed inside the controller (" + fault + ")");
}

void finish_refresh(self_ptr self, std::string detail) {
  auto& st = self->state;
  st.refreshing = false;
  ++st.refresh_generation;  // what the ended refresh still has in flight does nothing now
  if (detail.empty()) {
    auto fault = contained(st, [&] {
      std::set<std::uint32_t> ids;
      for (const auto& [id, vm] : st.vms) ids.insert(id);
      st.ids.set_existing(std::move(ids));
      rebuild_placement(st);
      rebuild_ipam(st);
    });
    if (fault.empty()) {
      st.refreshed = true;
      // Not at the first refresh: a start lists no ISO storage of every host (the grace keeps
      // young ISOs anyway); every `leftover_iso_every` refreshes after.
      if (st.cfg.leftover_iso_every > 0 && ++st.refreshes % st.cfg.leftover_iso_every == 0) {
        contained(st, [&] { sweep_leftover_isos(self); });
      }
    } else {
      detail = "internal: rebuilding the inventory failed (" + fault + ")";
    }
  }
  st.detail = std::move(detail);
  if (!st.detail.empty()) {
    st.log.debug("inventory refresh failed", {{"region", st.cfg.region}, {"detail", st.detail}});
  }
  schedule_tick(self);
  if (st.refresh_again) {
    st.refresh_again = false;
    // Defer through the mailbox so a refresh never recurses.
    self->send(self, protocol::refresh_atom::value);
  }
  // Waiters run even after a failed refresh: with a stale (or no) inventory they answer errors.
  // Each runs on its own: one that throws (outside any launch's scope) stops none of the others.
  auto waiters = std::move(st.after_refresh);
  st.after_refresh.clear();
  for (auto& w : waiters) contained(st, w);
}

}  // namespace kp::actors::region
