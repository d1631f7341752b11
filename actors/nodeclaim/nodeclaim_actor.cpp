// The nodeclaim actor. One phase runs at a time (`busy`); each phase ends with a write to the
// claim, and snapshots older than our last write are skipped (their resourceVersion is lower),
// so a phase never runs twice on a state we already changed. The launch result is also kept in
// memory for the claim's UID: a snapshot that lags the status write re-writes the status from it
// instead of asking the region again. Kubernetes completions come back as continuations; region
// replies and timers are ordinary messages, so everything runs inside the actor.
#include "actors/nodeclaim/nodeclaim_actor.hpp"

#include <algorithm>
#include <charconv>

#include <caf/all.hpp>

#include "actors/failure_boundary.hpp"
#include "actors/nodeclaim/claim_state.hpp"
#include "actors/nodeclaim/launch_plan.hpp"
#include "protocol/kube/patches.hpp"

namespace kp::actors::nodeclaim {
namespace detail {
namespace {

std::int64_t rv_number(const std::string& rv) {
  std::int64_t n = -1;
  auto [p, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), n);
  return ec == std::errc{} && p == rv.data() + rv.size() ? n : -1;
}

// Root Ready follows Launched, Registered and Initialized.
void set_ready(claim_state& st, kube::node_claim& claim) {
  auto& c = claim.status.conditions;
  bool all = condition_is_true(c, "Launched") && condition_is_true(c, "Registered") &&
             condition_is_true(c, "Initialized");
  set_condition(c, "Ready", all ? "True" : "Unknown",
                all ? condition_reason("Ready") : condition_reason("NotReady"), "", now_rfc3339(st),
                claim.metadata.generation);
}

void reconcile(self_ptr self);

}  // namespace

std::string now_rfc3339(const claim_state& st) {
  return kube::format_rfc3339(st.ctx->wall_clock_ms());
}

const kube::node_claim* current_claim(const claim_state& st) {
  if (!st.snapshot) return nullptr;
  return protocol::cluster_snapshot::find(st.snapshot->node_claims, st.claim_name);
}

void note_written(self_ptr self, const kube::node_claim& written) {
  auto n = rv_number(written.metadata.resource_version);
  if (n >= 0) self->state.written_rv = std::max(self->state.written_rv, n);
}

void event(const claim_state& st, const kube::node_claim& claim, std::string type,
           event_reason reason, std::string message) {
  protocol::event_record e;
  e.kind = "NodeClaim";
  e.api_version = "karpenter.sh/v1";
  e.name = claim.metadata.name;
  e.uid = claim.metadata.uid;
  e.type = std::move(type);
  e.reason = reason.str();
  e.message = std::move(message);
  record_event(*st.ctx, std::move(e));
}

std::string nodepool_of(const kube::node_claim& claim) {
  auto it = claim.metadata.labels.find(nodepool_label);
  return it == claim.metadata.labels.end() ? "" : it->second;
}

std::string label_of(const kube::node_claim& claim, const char* key) {
  auto it = claim.metadata.labels.find(key);
  return it == claim.metadata.labels.end() ? "" : it->second;
}

void schedule_retry(self_ptr self) {
  auto& st = self->state;
  if (st.retry_pending) return;
  st.retry_pending = true;
  self->delayed_send(self, st.retry.next(), retry_atom::value);
}

// Ends a phase: `ok` resets the backoff and looks at the state again; otherwise retry later.
void phase_done(self_ptr self, bool ok) {
  self->state.busy = false;
  if (ok) {
    self->state.retry.reset();
    reconcile(self);
  } else {
    schedule_retry(self);
  }
}

// Writes the claim's status (merge patch of the status subresource) and then runs `next`.
void write_status(self_ptr self, kube::node_claim claim, std::function<void(bool)> next) {
  set_ready(self->state, claim);
  const auto gen = claim.metadata.generation;
  self->state.ctx->kube->patch<kube::node_claim>(
      {"", claim.metadata.name}, kube::patch_type::merge,
      kube::node_claim_status_merge_patch(claim),
      in_actor<kube::node_claim>(self,
                                 [self, next, gen](result<kube::node_claim> r) {
                                   auto& st = self->state;
                                   if (r) {
                                     note_written(self, *r);
                                   } else if (status_refusals::is_refusal(r.error())) {
                                     st.refusals.report(r.error(), "NodeClaim", st.claim_name, gen,
                                                        "", st.ctx->metrics.get(), st.log);
                                   } else {
                                     self->state.log.warn(
                                         "writing the NodeClaim status failed",
                                         {{"nodeclaim", self->state.claim_name},
                                          {"error", r.error().code + ": " + r.error().message}});
                                   }
                                   next(r.ok());
                                 }),
      "status");
}

// Sets one condition and writes the status only when it changed.
void write_condition(self_ptr self, const kube::node_claim& claim, const std::string& type,
                     const std::string& status, condition_reason reason,
                     const std::string& message) {
  kube::node_claim copy = claim;
  if (!set_condition(copy.status.conditions, type, status, reason, message,
                     now_rfc3339(self->state), claim.metadata.generation)) {
    return;
  }
  self->state.busy = true;
  write_status(self, std::move(copy), [self](bool ok) {
    self->state.busy = false;
    if (!ok) schedule_retry(self);  // nothing else would bring us back if the cluster is quiet
  });
}

namespace {

// --- finalizer -----------------------------------------------------------------------------------

bool has_finalizer(const kube::node_claim& claim) {
  const auto& f = claim.metadata.finalizers;
  return std::find(f.begin(), f.end(), termination_finalizer) != f.end();
}

void add_finalizer(self_ptr self, const kube::node_claim& claim) {
  auto finalizers = claim.metadata.finalizers;
  finalizers.push_back(termination_finalizer);
  self->state.busy = true;
  self->state.ctx->kube->patch<kube::node_claim>(
      {"", claim.metadata.name}, kube::patch_type::merge,
      kube::finalizers_merge_patch(finalizers, claim.metadata.resource_version),
      in_actor<kube::node_claim>(self, [self](result<kube::node_claim> r) {
        if (r) note_written(self, *r);
        // A conflict means a newer claim is on its way: the next snapshot tries again.
        self->state.busy = false;
        if (!r && r.error().code != "conflict") schedule_retry(self);
      }));
}

// --- the phase loop ------------------------------------------------------------------------------

void reconcile(self_ptr self) {
  auto& st = self->state;
  if (st.busy) return;
  const auto* claim = current_claim(st);
  if (claim == nullptr || claim->metadata.deletion_timestamp) return;
  auto rv = rv_number(claim->metadata.resource_version);
  if (rv >= 0 && rv < st.written_rv) return;  // older than our last write: wait
  if (st.launched && st.launched->uid != claim->metadata.uid) {
    st.launched.reset();  // a new claim with the same name
  }
  if (!has_finalizer(*claim)) {
    add_finalizer(self, *claim);
    return;
  }
  arm_timers(self, *claim);
  const auto& c = claim->status.conditions;
  if (!condition_is_true(c, "Launched")) {
    if (st.retry_pending) return;
    launch(self, *claim);
    return;
  }
  if (!condition_is_true(c, "Registered")) {
    if (!st.retry_pending) do_register(self, *claim);
    return;
  }
  delete_tokens(self, *claim);  // level-triggered: a token left by a crash goes too
  if (!condition_is_true(c, "Initialized")) {
    if (!st.retry_pending) do_initialize(self, *claim);
    return;
  }
  if (st.retry_pending) return;
  if (!st.iso_released) {
    release_iso(self, *claim);
    return;
  }
  sync_with_node_class(self, *claim);
}

// The handlers are not guarded one by one: the actor's state is this one claim, and a phase cut
// off by an exception would leave it half-done (busy, a timer not armed). The boundary reports
// the failure and stops the actor; the fleet starts a fresh one that reads the claim and its VM.
impl_actor::behavior_type claim_behavior(self_ptr self, shared_context ctx, std::string name) {
  install_boundary(self, make_boundary("nodeclaim", ctx->metrics),
                   "NodeClaim " + name + "; its actor stops and restarts from the cluster state");
  self->state.ctx = std::move(ctx);
  self->state.claim_name = std::move(name);
  return {
      [self](protocol::snapshot_ptr snapshot) {
        self->state.snapshot = std::move(snapshot);
        reconcile(self);
      },
      [self](resume_atom, continuation& c) { c.run(); },
      [self](retry_atom) {
        self->state.retry_pending = false;
        reconcile(self);
      },
      [self](deadline_atom, int which) { on_deadline(self, which); },
  };
}

}  // namespace
}  // namespace detail

protocol::nodeclaim_actor spawn_nodeclaim_actor(caf::actor_system& system, shared_context ctx,
                                                std::string name) {
  auto impl = system.spawn(detail::claim_behavior, std::move(ctx), std::move(name));
  return impl;
}

protocol::nodeclaim_actor spawn_nodeclaim_actor(caf::actor_system& system,
                                                const controller_context& ctx, std::string name) {
  return spawn_nodeclaim_actor(system, std::make_shared<const controller_context>(ctx),
                               std::move(name));
}

}  // namespace kp::actors::nodeclaim
