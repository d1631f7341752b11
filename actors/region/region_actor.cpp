// The region actor's behaviour: each message goes to the concept that handles it (inventory,
// launch, delete, ISO, sync, templates, task waits), plus the plumbing they share (continuations
// and timers on the actor clock). Launches, deletes and every other Proxmox operation each hold one
// credit of the window for their whole sequence.
#include "actors/region/region_actor.hpp"

#include <algorithm>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/registry.h>

#include "actors/failure_boundary.hpp"
#include "actors/region/region_state.hpp"
#include "protocol/provider_id.hpp"

namespace kp::actors::region {

using namespace kp::protocol;

const char* step_name(launch_step s) {
  switch (s) {
    case launch_step::clone:
      return "clone";
    case launch_step::upload:
      return "upload";
    case launch_step::config:
      return "config";
    case launch_step::resize:
      return "resize";
    case launch_step::firewall:
      return "firewall";
    case launch_step::start:
      return "start";
    case launch_step::join:
      return "join";
    case launch_step::done:
      return "done";
  }
  return "?";
}

proxmox::done_callback bounce_status(self_ptr self, std::function<void(status)> f) {
  return resume_in<status>(impl_actor{self}, within_launch(self, std::move(f)));
}

void after(self_ptr self, std::chrono::milliseconds delay, std::function<void()> f) {
  if (delay.count() < 0) delay = std::chrono::milliseconds(0);
  self->delayed_send(self, delay, resume_atom::value,
                     continuation{within_launch(self, std::move(f))});
}

region_error proxmox_error(const kp::error& e) {
  return {"proxmox", e.code + ": " + e.message};
}

std::string provider_id(const region_state& st, std::uint32_t vmid) {
  return protocol::format_provider_id(st.cfg.region, vmid);
}

bool clone_unfinished(std::string_view lock, const std::optional<std::string>& name) {
  return lock == "clone" && name.value_or("").empty();
}

bool is_unmarked_clone(const vm_record& vm) {
  if (vm.is_template || vm.is_container || mark_of(vm)) return false;
  const bool locked = vm.lock == "clone" || (vm.config && vm.config->lock == "clone");
  // /cluster/resources names an unnamed VM "VM <vmid>": only the config's name counts.
  static const std::optional<std::string> unnamed;
  return clone_unfinished(locked ? "clone" : "", vm.config ? vm.config->name : unnamed);
}

bool is_gone(const kp::error& e) {
  return e.code == "not_found";
}

void note_in_flight(region_state& st) {
  st.peak_in_flight = std::max(st.peak_in_flight, st.window->in_flight());
}

// --- behaviour -------------------------------------------------------------------------------

namespace {

// Answers `rp` with a "proxmox" error when there is no inventory yet, else runs `f`.
template <class Reply>
void with_ready_inventory(self_ptr self, caf::typed_response_promise<Reply> rp,
                          std::function<void()> f) {
  with_inventory(self, [self, rp, f = std::move(f)]() mutable {
    if (!self->state.refreshed) {
      Reply reply;
      reply.error = {"proxmox", "no inventory of region " + self->state.cfg.region +
                                    " yet: " + self->state.detail};
      rp.deliver(reply);
      return;
    }
    f();
  });
}

void on_claimed_vmids(self_ptr self, claimed_vmids msg) {
  auto& st = self->state;
  auto sender = self->current_sender() ? self->current_sender()->id() : caf::actor_id{0};
  if (!st.claims_known || sender != st.claims_sender) {
    // A new fleet (a restart or a new leader): list before the next allocation.
    st.claims_sender = sender;
    st.list_before_allocate = true;
  }
  st.ids.set_claimed({msg.vmids.begin(), msg.vmids.end()});
  bool first = !st.claims_known;
  st.claims_known = true;
  if (first) {
    auto waiting = std::move(st.waiting_for_claims);
    st.waiting_for_claims.clear();
    for (auto& w : waiting) w();
  }
}

void setup_metrics(region_state& st) {
  if (st.cfg.metrics == nullptr) return;
  st.metrics.refusals = &prometheus::BuildCounter()
                             .Name("karpenter_proxmox_foreign_vm_refusals_total")
                             .Help(
                                 "Requests the region refused because the VM's ownership mark "
                                 "did not name this cluster and the expected NodeClaim or "
                                 "template; the VM was not touched.")
                             .Register(*st.cfg.metrics);
  st.metrics.unknown = &prometheus::BuildCounter()
                            .Name("karpenter_proxmox_unknown_vm_reads_total")
                            .Help(
                                "Reads of a VM's ownership that failed (config read error, host "
                                "offline): the VM counts as unknown, never as gone.")
                            .Register(*st.cfg.metrics);
}

impl_actor::behavior_type region_behavior(self_ptr self, std::shared_ptr<proxmox::api> api,
                                          region_settings cfg) {
  auto& st = self->state;
  // Every handler and completion is confined to the request or operation it was handling; a
  // request whose handler threw is answered with an error instead of its deadline.
  auto boundary = make_boundary("region", cfg.karpenter);
  install_boundary(self, boundary);
  st.boundary = boundary;
  st.api = std::move(api);
  st.clock = &self->clock();
  st.ids = vmid_allocator(cfg.first_vmid, cfg.vmid_quarantine);
  st.timing = task_timing(cfg.task_first_poll_floor, cfg.task_first_poll_cap);
  st.windows =
      std::make_unique<credit_windows>(cfg.max_in_flight, "region/" + cfg.region, cfg.metrics);
  st.window = &st.windows->to("proxmox");
  st.cfg = std::move(cfg);
  st.started_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  setup_metrics(st);
  refresh(self);
  return guarded_behavior<impl_actor::behavior_type>(
      boundary,
      [self](launch_atom, launch_request req) {
        auto rp = self->make_response_promise<launch_reply>();
        with_ready_inventory(self, rp, [self, req = std::move(req), rp]() mutable {
          handle_launch(self, std::move(req), rp);
        });
        return rp;
      },
      [self](vm_delete_atom, delete_request req) {
        auto rp = self->make_response_promise<delete_reply>();
        with_ready_inventory(self, rp, [self, req, rp] { handle_delete(self, req, rp); });
        return rp;
      },
      [self](list_owned_atom) {
        auto rp = self->make_response_promise<owned_vm_listing>();
        with_fresh_inventory(self, [self, rp]() mutable { rp.deliver(list_owned(self->state)); });
        return rp;
      },
      [self](inventory_atom) {
        auto rp = self->make_response_promise<region_inventory>();
        with_inventory(self, [self, rp]() mutable { rp.deliver(snapshot(self->state)); });
        return rp;
      },
      [self](refresh_atom) { refresh(self); },
      [self](release_iso_atom, release_iso_request req) {
        auto rp = self->make_response_promise<release_iso_reply>();
        with_ready_inventory(self, rp, [self, req, rp] { handle_release_iso(self, req, rp); });
        return rp;
      },
      [self](sync_vm_atom, sync_vm_request req) {
        auto rp = self->make_response_promise<sync_vm_reply>();
        with_ready_inventory(self, rp, [self, req, rp] { handle_sync(self, req, rp); });
        return rp;
      },
      [self](claimed_vmids msg) { on_claimed_vmids(self, std::move(msg)); },
      [self](template_atom, template_observe_request req) {
        auto rp = self->make_response_promise<template_observation>();
        handle_template_observe(self, std::move(req), rp);
        return rp;
      },
      [self](template_atom, template_download_request req) {
        auto rp = self->make_response_promise<template_step_reply>();
        with_ready_inventory(self, rp,
                             [self, req, rp] { handle_template_download(self, req, rp); });
        return rp;
      },
      [self](template_atom, template_create_request req) {
        auto rp = self->make_response_promise<template_step_reply>();
        with_ready_inventory(self, rp, [self, req, rp] { handle_template_create(self, req, rp); });
        return rp;
      },
      [self](template_atom, template_clone_request req) {
        auto rp = self->make_response_promise<template_step_reply>();
        with_ready_inventory(self, rp, [self, req, rp] { handle_template_clone(self, req, rp); });
        return rp;
      },
      [self](template_atom, template_convert_request req) {
        auto rp = self->make_response_promise<template_step_reply>();
        with_ready_inventory(self, rp, [self, req, rp] { handle_template_convert(self, req, rp); });
        return rp;
      },
      [self](template_atom, template_retire_request req) {
        auto rp = self->make_response_promise<template_step_reply>();
        with_ready_inventory(self, rp, [self, req, rp] { handle_template_retire(self, req, rp); });
        return rp;
      },
      [self](template_atom, template_delete_request req) {
        auto rp = self->make_response_promise<template_step_reply>();
        with_ready_inventory(self, rp, [self, req, rp] { handle_template_delete(self, req, rp); });
        return rp;
      },
      [boundary](resume_atom, continuation& c) { boundary->run(c); },
      [self](tick_atom, std::uint64_t generation) {
        if (generation == self->state.timer_generation) refresh(self);
      });
}

}  // namespace

protocol::region_actor spawn_region_actor(caf::actor_system& system,
                                          std::shared_ptr<proxmox::api> api,
                                          region_settings settings) {
  return system.spawn(region_behavior, std::move(api), std::move(settings));
}

}  // namespace kp::actors::region
