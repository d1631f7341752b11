// The leader elector actor. Kubernetes calls complete on io threads and come back as `resume`
// messages; timers (the retry tick and the renew deadline) come from the actor clock, so the
// test coordinator drives them. The Lease's own times come from the wall clock in the options.
#include "actors/leader_election/leader_elector.hpp"

#include <caf/all.hpp>

#include "actors/continuation.hpp"
#include "actors/failure_boundary.hpp"
#include "actors/leader_election/lease_decision.hpp"
#include "observability/logging.hpp"

namespace kp::actors::leader_election {
namespace {

using namespace kp::protocol;
using tick_atom = caf::atom_constant<caf::atom("electtick")>;
using deadline_atom = caf::atom_constant<caf::atom("renewdead")>;
using impl_actor = leader_elector_actor::extend<caf::reacts_to<resume_atom, continuation>,
                                                caf::reacts_to<tick_atom>,
                                                caf::reacts_to<deadline_atom, std::uint64_t>>;

// What outlives the actor: enough to give the Lease up from the exit hook, which runs after the
// state may be gone.
struct holding {
  std::shared_ptr<kube::client> kube;
  std::function<std::int64_t()> now;
  leadership_listener listener;
  bool release_on_exit = true;
  bool leading = false;
  bool written = false;  // last_written is the Lease as we last wrote it
  kube::lease last_written;
};

struct elector_state {
  leader_election_options opt;
  std::shared_ptr<holding> hold;
  bool in_flight = false;     // one read-decide-write at a time...
  std::uint64_t attempt = 0;  // ...identified, so an abandoned one's completion is ignored
  caf::actor_clock::time_point attempt_started;
  std::uint64_t renewals = 0;  // successful writes; a deadline timer carries the count it armed
  std::string observed_holder;
  obs::logger log{"leader-election"};
};

using self_ptr = impl_actor::stateful_pointer<elector_state>;

template <class T>
std::function<void(result<T>)> resume(self_ptr self, std::function<void(result<T>)> f) {
  return resume_in<result<T>>(impl_actor{self}, std::move(f));
}

void lose(self_ptr self, const std::string& why) {
  auto& st = self->state;
  if (!st.hold->leading) return;
  st.hold->leading = false;
  st.log.warn("leadership lost", {{"lease", st.opt.namespace_ + "/" + st.opt.name},
                                  {"identity", st.opt.identity},
                                  {"reason", why}});
  if (st.hold->listener) self->send(st.hold->listener, leadership_atom::value, false);
}

void succeeded(self_ptr self, kube::lease written, caf::actor_clock::time_point started) {
  auto& st = self->state;
  st.in_flight = false;
  st.hold->last_written = std::move(written);
  st.hold->written = true;
  ++st.renewals;
  // The deadline counts from when this attempt read the clock, not from its completion: the
  // renewTime we wrote is that old, and the other replicas measure expiry from it.
  auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(
      started + st.opt.renew_deadline - self->clock().now());
  if (remaining.count() < 0) remaining = std::chrono::milliseconds(0);
  self->delayed_send(self, remaining, deadline_atom::value, st.renewals);
  if (st.hold->leading) return;
  st.hold->leading = true;
  st.observed_holder = st.opt.identity;
  st.log.info("leadership acquired",
              {{"lease", st.opt.namespace_ + "/" + st.opt.name}, {"identity", st.opt.identity}});
  if (st.hold->listener) self->send(st.hold->listener, leadership_atom::value, true);
}

void failed(self_ptr self, const kp::error& e, const char* step) {
  auto& st = self->state;
  st.in_flight = false;
  // A 409 is the normal sign of another writer; anything else is worth a warning while leading
  // (the renew deadline is running).
  const bool quiet = e.code == "conflict" || e.code == "already_exists";
  auto fields = obs::log_fields{{"lease", st.opt.namespace_ + "/" + st.opt.name},
                                {"step", step},
                                {"code", e.code},
                                {"error", e.message}};
  if (st.hold->leading && !quiet) {
    st.log.warn("lease write failed", fields);
  } else {
    st.log.debug("lease attempt failed", fields);
  }
}

void decide_and_write(self_ptr self, const std::optional<kube::lease>& current,
                      caf::actor_clock::time_point started, std::uint64_t id) {
  auto& st = self->state;
  auto d = decide(current, st.opt.name, st.opt.namespace_, st.opt.identity, st.hold->now(),
                  st.opt.lease_duration);
  switch (d.action) {
    case lease_action::wait:
      st.in_flight = false;
      if (d.holder != st.observed_holder) {
        st.observed_holder = d.holder;
        st.log.info("lease held by another replica",
                    {{"lease", st.opt.namespace_ + "/" + st.opt.name}, {"holder", d.holder}});
      }
      lose(self, "the Lease is held by " + d.holder);
      st.hold->written = false;  // not ours to release any more
      return;
    case lease_action::create:
      st.hold->kube->create<kube::lease>(
          d.desired, resume<kube::lease>(self, [self, started, id](result<kube::lease> r) {
            if (id != self->state.attempt) return;
            if (!r) return failed(self, r.error(), "create");
            succeeded(self, std::move(*r), started);
          }));
      return;
    case lease_action::acquire:
    case lease_action::renew:
      st.hold->kube->update<kube::lease>(
          d.desired, resume<kube::lease>(self, [self, started, id](result<kube::lease> r) {
            if (id != self->state.attempt) return;
            if (!r) return failed(self, r.error(), "update");
            succeeded(self, std::move(*r), started);
          }));
      return;
  }
}

void attempt(self_ptr self) {
  auto& st = self->state;
  const auto now = self->clock().now();
  // A request can hang far longer than the renew deadline (the client's timeout is 30 s); past
  // the deadline it is abandoned so that attempts go on. A late write of it is harmless: the
  // next read shows it.
  if (st.in_flight && now - st.attempt_started < st.opt.renew_deadline) return;
  st.in_flight = true;
  st.attempt_started = now;
  const auto id = ++st.attempt;
  st.hold->kube->get<kube::lease>(
      {st.opt.namespace_, st.opt.name},
      resume<kube::lease>(self, [self, started = now, id](result<kube::lease> r) {
        if (id != self->state.attempt) return;
        if (!r && r.error().code != "not_found") return failed(self, r.error(), "get");
        std::optional<kube::lease> current;
        if (r) current = std::move(*r);
        decide_and_write(self, current, started, id);
      }));
}

impl_actor::behavior_type elector_behavior(self_ptr self, std::shared_ptr<kube::client> kube,
                                           leader_election_options opt,
                                           leadership_listener listener) {
  auto& st = self->state;
  st.hold = std::make_shared<holding>();
  st.hold->kube = std::move(kube);
  st.hold->listener = std::move(listener);
  st.hold->release_on_exit = opt.release_on_exit;
  st.hold->now = opt.wall_clock_ms ? opt.wall_clock_ms : [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  st.opt = std::move(opt);
  self->attach_functor([hold = st.hold](const caf::error&) {
    if (hold->leading && hold->listener) {
      caf::anon_send(hold->listener, leadership_atom::value, false);
    }
    hold->leading = false;
    if (!hold->release_on_exit || !hold->written) return;
    // Best effort: an update with the resourceVersion we last wrote, so it fails harmlessly
    // (409) if someone else has taken the Lease meanwhile.
    hold->kube->update<kube::lease>(released(hold->last_written, hold->now()),
                                    [](result<kube::lease>) {});
  });
  auto boundary = make_boundary("leader_elector", st.opt.metrics);
  install_boundary(self, boundary);
  attempt(self);
  self->delayed_send(self, st.opt.retry_period, tick_atom::value);
  return guarded_behavior<impl_actor::behavior_type>(
      boundary, [self](leadership_atom) { return self->state.hold->leading; },
      [boundary](resume_atom, continuation& c) { boundary->run(c); },
      [self](tick_atom) {
        // The next attempt first: one that fails must not end the attempts.
        self->delayed_send(self, self->state.opt.retry_period, tick_atom::value);
        attempt(self);
      },
      [self](deadline_atom, std::uint64_t armed_at) {
        if (armed_at == self->state.renewals) {
          lose(self, "no renewal within the renew deadline");
        }
      });
}

}  // namespace

leader_election_options options_from(const config::settings& settings, std::string identity,
                                     const std::string& pod_namespace) {
  leader_election_options o;
  o.name = settings.leader_election_name;
  o.namespace_ = settings.leader_election_namespace.empty() ? pod_namespace
                                                            : settings.leader_election_namespace;
  o.identity = std::move(identity);
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  o.lease_duration = duration_cast<milliseconds>(settings.leader_election_lease_duration);
  o.renew_deadline = duration_cast<milliseconds>(settings.leader_election_renew_deadline);
  o.retry_period = duration_cast<milliseconds>(settings.leader_election_retry_period);
  return o;
}

protocol::leader_elector_actor spawn_leader_elector(caf::actor_system& system,
                                                    std::shared_ptr<kube::client> kube,
                                                    leader_election_options options,
                                                    protocol::leadership_listener listener) {
  return system.spawn(elector_behavior, std::move(kube), std::move(options), std::move(listener));
}

}  // namespace kp::actors::leader_election
