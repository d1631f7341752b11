// The nodeclaim actor's upkeep of a launched claim: the region releases the cloud-init ISO and
// keeps the VM in step with its node class; a VMID holding a VM not this claim's is left alone;
// a claim not launched or registered in time is deleted.
#include <algorithm>

#include <caf/all.hpp>

#include "actors/nodeclaim/claim_state.hpp"
#include "actors/nodeclaim/launch_plan.hpp"

namespace kp::actors::nodeclaim::detail {
namespace {

// Every request to the region has a deadline.
constexpr auto region_request_timeout = std::chrono::minutes(5);

// The region refused to touch the VM the claim names: its VMID holds a VM that is not this
// claim's (ours vanished and someone reused the id). Treated as gone for this claim, never
// touched; said once on the claim.
void foreign_vm(self_ptr self, const std::string& what, const std::string& message) {
  auto& st = self->state;
  st.log.warn("the VM the claim names is not its own; leaving it untouched",
              {{"nodeclaim", st.claim_name}, {"while", what}, {"reason", message}});
  if (const auto* claim = current_claim(st)) {
    event(st, *claim, "Warning", "ForeignVM", message);
  }
}

}  // namespace

void release_iso(self_ptr self, const kube::node_claim& claim) {
  auto& st = self->state;
  auto ref = parse_provider_id(claim.status.provider_id);
  auto region = ref ? st.ctx->regions.find(ref->region) : st.ctx->regions.end();
  if (region == st.ctx->regions.end()) {
    st.iso_released = true;  // not a VM of ours to clean up
    return;
  }
  protocol::release_iso_request req;
  req.vmid = ref->vmid;
  req.nodeclaim = claim.metadata.name;
  st.busy = true;
  self->request(region->second, region_request_timeout, protocol::release_iso_atom::value, req)
      .then(
          [self](protocol::release_iso_reply& reply) {
            auto& st = self->state;
            st.busy = false;
            if (reply.ok || reply.error.code == "foreign_vm") {
              if (!reply.ok) foreign_vm(self, "releasing the cloud-init ISO", reply.error.message);
              st.iso_released = true;
              st.retry.reset();
              return;
            }
            st.log.warn("releasing the cloud-init ISO failed",
                        {{"nodeclaim", st.claim_name}, {"error", reply.error.message}});
            schedule_retry(self);
          },
          [self](caf::error&) {
            self->state.busy = false;
            schedule_retry(self);
          });
}

// Tags, firewall groups and pool follow the node class in place: once per node class
// generation (and once after a restart) the region compares the VM with it and writes only the
// differences (kpp.md 4.5).
void sync_with_node_class(self_ptr self, const kube::node_claim& claim) {
  auto& st = self->state;
  const auto* nc =
      protocol::cluster_snapshot::find(st.snapshot->node_classes, claim.spec.node_class_ref.name);
  auto ref = parse_provider_id(claim.status.provider_id);
  auto region = ref ? st.ctx->regions.find(ref->region) : st.ctx->regions.end();
  if (nc == nullptr || region == st.ctx->regions.end()) return;
  auto version = nc->metadata.uid + "/" + std::to_string(nc->metadata.generation);
  if (version == st.synced_node_class) return;
  st.busy = true;
  self->request(region->second, region_request_timeout, protocol::sync_vm_atom::value,
                sync_request_for(ref->vmid, claim.metadata.name, *nc))
      .then(
          [self, version](protocol::sync_vm_reply& reply) {
            auto& st = self->state;
            st.busy = false;
            if (reply.error.code == "foreign_vm") {
              foreign_vm(self, "syncing the VM with its node class", reply.error.message);
              st.synced_node_class = version;  // nothing of ours to sync there
              return;
            }
            if (!reply.ok) {
              st.log.warn("syncing the VM with its node class failed",
                          {{"nodeclaim", st.claim_name}, {"error", reply.error.message}});
              schedule_retry(self);
              return;
            }
            st.synced_node_class = version;
            if (!reply.changed.empty()) {
              std::string what;
              for (const auto& c : reply.changed) what += (what.empty() ? "" : ",") + c;
              st.log.info("VM updated in place from its node class",
                          {{"nodeclaim", st.claim_name}, {"changed", what}});
            }
          },
          [self](caf::error&) {
            self->state.busy = false;
            schedule_retry(self);
          });
}

// --- timeouts ------------------------------------------------------------------------------------

namespace {

std::chrono::milliseconds remaining(const claim_state& st, const std::string& since,
                                    config::duration timeout) {
  auto start = kube::parse_rfc3339_ms(since).value_or(st.ctx->wall_clock_ms());
  auto elapsed = st.ctx->wall_clock_ms() - start;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(timeout).count() - elapsed;
  return std::chrono::milliseconds(std::max<std::int64_t>(0, left));
}

}  // namespace

void arm_timers(self_ptr self, const kube::node_claim& claim) {
  auto& st = self->state;
  const auto& c = claim.status.conditions;
  if (!condition_is_true(c, "Launched") && !st.launch_armed) {
    st.launch_armed = true;
    self->delayed_send(
        self, remaining(st, claim.metadata.creation_timestamp, st.ctx->settings.launch_timeout),
        deadline_atom::value, launch_deadline);
  }
  if (condition_is_true(c, "Launched") && !condition_is_true(c, "Registered") &&
      !st.registration_armed) {
    st.registration_armed = true;
    const auto* launched = find_condition(c, "Launched");
    self->delayed_send(
        self, remaining(st, launched->last_transition_time, st.ctx->settings.registration_timeout),
        deadline_atom::value, registration_deadline);
  }
}

void on_deadline(self_ptr self, int which) {
  auto& st = self->state;
  const auto* claim = current_claim(st);
  if (claim == nullptr || claim->metadata.deletion_timestamp) return;
  const auto& c = claim->status.conditions;
  std::string reason;
  if (which == launch_deadline) {
    if (condition_is_true(c, "Launched") || st.launched) return;
    reason = "launch_timeout";
  } else {
    if (condition_is_true(c, "Registered") || st.registered_written) return;
    reason = "registration_timeout";
  }
  auto copy = *claim;
  st.log.warn("deleting the NodeClaim: " + reason, {{"nodeclaim", copy.metadata.name}});
  event(st, copy, "Warning",
        which == launch_deadline ? event_reason("LaunchTimeout")
                                 : event_reason("RegistrationTimeout"),
        which == launch_deadline
            ? "not launched within LAUNCH_TIMEOUT; deleting the NodeClaim"
            : "no Node registered within REGISTRATION_TIMEOUT; deleting the NodeClaim");
  kube::delete_options opts;
  opts.precondition_uid =
      copy.metadata.uid.empty() ? std::nullopt : std::optional<std::string>(copy.metadata.uid);
  st.ctx->kube->remove<kube::node_claim>(
      {"", copy.metadata.name}, opts, in_actor_status(self, [self, copy, reason, which](status s) {
        auto& st = self->state;
        if (s || s.error().code == "not_found") {
          if (st.ctx->metrics && s) {
            st.ctx->metrics->nodeclaims_disrupted
                .Add({{"reason", reason},
                      {"nodepool", nodepool_of(copy)},
                      {"capacity_type", "on-demand"}})
                .Increment();
          }
          return;
        }
        // Try again soon: re-arm from the same (already passed) deadline.
        if (which == launch_deadline)
          st.launch_armed = false;
        else
          st.registration_armed = false;
        schedule_retry(self);
      }));
}

}  // namespace kp::actors::nodeclaim::detail
