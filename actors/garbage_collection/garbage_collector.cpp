#include "actors/garbage_collection/garbage_collector.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/continuation.hpp"
#include "actors/event_reasons.hpp"
#include "actors/failure_boundary.hpp"
#include "actors/garbage_collection/garbage.hpp"
#include "observability/logging.hpp"

namespace kp::actors {

namespace {

using namespace garbage_collection;
using namespace std::chrono_literals;

using gc_tick_atom = caf::atom_constant<caf::atom("gctick")>;

using impl_actor =
    protocol::garbage_collector_actor::extend<caf::reacts_to<resume_atom, continuation>,
                                              caf::reacts_to<gc_tick_atom>>;

constexpr auto list_timeout = std::chrono::minutes(2);
constexpr auto delete_timeout = std::chrono::minutes(10);
// A pass still running this long after it started lost a reply to a failure: give it up.
constexpr auto pass_give_up = list_timeout + std::chrono::minutes(1);

struct gc_state {
  controller_context ctx;
  protocol::snapshot_ptr snap;
  bool running = false;
  bool again = false;
  std::uint64_t pass_generation = 0;  // a reply of a pass given up is dropped
  caf::actor_clock::time_point pass_started;
  boundary_ptr boundary;
  bool seen_synced = false;
  std::uint64_t passes = 0;
  std::map<std::string, std::int64_t> first_seen;  // vm_key -> wall clock first listed
  std::set<std::string> deleting_vms;
  std::set<std::string> deleting_claims;
  std::set<std::string> deleting_secrets;
  obs::logger log{"garbage-collection"};
  static inline const char* name = "garbage-collector";
};

using self_ptr = impl_actor::stateful_pointer<gc_state>;

template <class T>
std::function<void(T)> back(self_ptr self, std::function<void(T)> f) {
  return resume_in<T>(impl_actor{self}, std::move(f));
}

std::int64_t ms_of(config::duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

void run_pass(self_ptr self);

// Something this pass could not judge: a debug line and the skip metric, nothing else.
void skipped(self_ptr self, const gc_skip& s) {
  auto& st = self->state;
  st.log.debug(
      "garbage collection skipped: Proxmox cannot tell whether the VM exists",
      {{"region", s.region}, {"what", s.what}, {"reason", s.reason}, {"detail", s.detail}});
  if (st.ctx.metrics) {
    st.ctx.metrics->garbage_collection_skipped.Add({{"region", s.region}, {"reason", s.reason}})
        .Increment();
  }
}

void delete_orphan(self_ptr self, const vm_garbage& g) {
  auto& st = self->state;
  auto key = vm_key(g.region, g.vmid);
  auto region = st.ctx.regions.find(g.region);
  if (region == st.ctx.regions.end() || !st.deleting_vms.insert(key).second) return;
  st.log.info("deleting orphan VM", {{"region", g.region},
                                     {"vmid", std::to_string(g.vmid)},
                                     {"nodeclaim", g.nodeclaim},
                                     {"reason", g.reason}});
  protocol::delete_request req;
  req.vmid = g.vmid;
  req.nodeclaim = g.nodeclaim;  // the region checks the mark still names it
  req.collect = true;           // never an adopted (Go provider's) VM
  self->request(region->second, delete_timeout, protocol::vm_delete_atom::value, req)
      .then(guarded(st.boundary,
                    [self, key, g](protocol::delete_reply& reply) {
                      self->state.deleting_vms.erase(key);
                      if (reply.ok) {
                        self->state.first_seen.erase(key);
                        self->state.log.info("deleted orphan VM", {{"region", g.region},
                                                                   {"vmid", std::to_string(g.vmid)},
                                                                   {"nodeclaim", g.nodeclaim},
                                                                   {"reason", g.reason}});
                      } else {
                        self->state.log.warn("deleting orphan VM failed",
                                             {{"region", g.region},
                                              {"vmid", std::to_string(g.vmid)},
                                              {"code", reply.error.code},
                                              {"error", reply.error.message}});
                      }
                    }),
            guarded(st.boundary, [self, key, g](caf::error& e) {
              self->state.deleting_vms.erase(key);
              self->state.log.warn("deleting orphan VM failed",
                                   {{"region", g.region},
                                    {"vmid", std::to_string(g.vmid)},
                                    {"error", self->system().render(e)}});
            }));
}

void delete_claim(self_ptr self, const claim_garbage& g) {
  auto& st = self->state;
  if (!st.deleting_claims.insert(g.name).second) return;
  st.log.info("deleting nodeclaim: garbage collected",
              {{"nodeclaim", g.name}, {"provider_id", g.provider_id}, {"reason", g.reason}});
  kube::delete_options opts;
  opts.precondition_uid = g.uid;
  st.ctx.kube->remove<kube::node_claim>(
      {"", g.name}, opts, back<status>(self, [self, g](status s) {
        auto& st = self->state;
        st.deleting_claims.erase(g.name);
        if (!s) {
          if (s.error().code != "not_found") {
            st.log.warn("deleting nodeclaim failed",
                        {{"nodeclaim", g.name}, {"error", s.error().message}});
          }
          return;
        }
        if (auto& m = st.ctx.metrics) {
          m->nodeclaims_disrupted
              .Add({{"reason", "garbage_collected"},
                    {"nodepool", g.nodepool},
                    {"capacity_type", g.capacity_type.empty() ? "on-demand" : g.capacity_type}})
              .Increment();
        }
        protocol::event_record e;
        e.kind = "NodeClaim";
        e.api_version = "karpenter.sh/v1";
        e.name = g.name;
        e.uid = g.uid;
        e.type = "Normal";
        e.reason = event_reason("GarbageCollected").str();
        e.message = g.reason;
        record_event(st.ctx, std::move(e));
      }));
}

void delete_token(self_ptr self, const secret_garbage& g) {
  auto& st = self->state;
  auto key = g.namespace_ + "/" + g.name;
  if (!st.deleting_secrets.insert(key).second) return;
  // The Secret's name is the token's public id; its secret half is never logged.
  st.log.info("deleting bootstrap token secret", {{"secret", key}, {"reason", g.reason}});
  kube::delete_options opts;
  opts.precondition_uid = g.uid;
  st.ctx.kube->remove<kube::secret>(
      {g.namespace_, g.name}, opts, back<status>(self, [self, key](status s) {
        self->state.deleting_secrets.erase(key);
        if (!s && s.error().code != "not_found") {
          self->state.log.warn("deleting bootstrap token secret failed",
                               {{"secret", key}, {"error", s.error().message}});
        }
      }));
}

// Judges what the listings and the snapshot show and removes the garbage, each object confined
// on its own.
void judge_pass(self_ptr self, const std::vector<region_listing>& listings) {
  auto& st = self->state;
  auto now = st.ctx.wall_clock_ms();
  // Ages of VMs whose creation time Proxmox does not give start when we first saw them.
  std::set<std::string> listed;
  for (const auto& l : listings) {
    if (!l.listed) continue;
    for (const auto& vm : l.vms) {
      auto key = vm_key(l.region, vm.vmid);
      listed.insert(key);
      st.first_seen.emplace(key, now);
    }
  }
  std::erase_if(st.first_seen, [&](const auto& kv) {
    auto region = kv.first.substr(0, kv.first.rfind('/'));
    bool region_listed = std::any_of(listings.begin(), listings.end(),
                                     [&](const auto& l) { return l.listed && l.region == region; });
    return region_listed && !listed.count(kv.first);
  });
  if (st.snap) {
    gc_clock clock;
    clock.now_ms = now;
    clock.vm_grace_ms = ms_of(st.ctx.settings.orphan_vm_grace_period);
    clock.claim_grace_ms = clock.vm_grace_ms;
    clock.token_grace_ms = clock.vm_grace_ms;
    const auto& b = *st.boundary;
    for (const auto& g : orphan_vms(*st.snap, listings, st.first_seen, clock)) {
      b.contain("VM " + vm_key(g.region, g.vmid), [&] { delete_orphan(self, g); });
    }
    std::vector<gc_skip> skips;
    for (const auto& g : lost_claims(*st.snap, listings, clock, &skips)) {
      b.contain("NodeClaim " + g.name, [&] { delete_claim(self, g); });
    }
    for (const auto& s : skips) skipped(self, s);
    for (const auto& g : stale_bootstrap_tokens(*st.snap, clock)) {
      b.contain("Secret " + g.namespace_ + "/" + g.name, [&] { delete_token(self, g); });
    }
  }
}

void finish_pass(self_ptr self, const std::vector<region_listing>& listings) {
  auto& st = self->state;
  // The pass as a whole is confined too, so that `running` is always reset below.
  st.boundary->contain("the garbage collection pass", [&] { judge_pass(self, listings); });
  ++st.passes;
  st.running = false;
  if (st.again) {
    st.again = false;
    run_pass(self);
  }
}

void run_pass(self_ptr self) {
  auto& st = self->state;
  if (st.running && self->clock().now() - st.pass_started < pass_give_up) {
    st.again = true;
    return;
  }
  if (st.running) st.log.warn("giving up a garbage collection pass that never finished", {});
  st.running = true;
  st.pass_started = self->clock().now();
  auto generation = ++st.pass_generation;
  if (st.ctx.regions.empty()) {
    finish_pass(self, {});
    return;
  }
  struct pass {
    std::vector<region_listing> listings;
    std::size_t left = 0;
  };
  auto p = std::make_shared<pass>();
  p->left = st.ctx.regions.size();
  auto arrived = [self, p, generation]() {
    if (--p->left == 0 && generation == self->state.pass_generation) {
      finish_pass(self, p->listings);
    }
  };
  for (const auto& [name, region] : st.ctx.regions) {
    auto index = p->listings.size();
    p->listings.push_back({name, false, {}, {}, {}});
    self->request(region, list_timeout, protocol::list_owned_atom::value)
        .then(guarded(st.boundary,
                      [self, p, index, arrived](protocol::owned_vm_listing& listing) {
                        auto& l = p->listings[index];
                        // Only a fresh listing proves anything missing; otherwise the region is
                        // skipped.
                        l.listed = listing.fresh;
                        l.vms = std::move(listing.vms);
                        l.unknown = std::move(listing.unknown);
                        l.unknown_hosts = std::move(listing.unknown_hosts);
                        if (!l.listed) {
                          skipped(self, {l.region, "region", "listing_not_fresh", listing.detail});
                        }
                        arrived();
                      }),
              guarded(st.boundary, [self, p, index, arrived](caf::error& e) {
                skipped(self, {p->listings[index].region, "region", "listing_not_fresh",
                               self->system().render(e)});
                arrived();
              }));
  }
}

impl_actor::behavior_type gc_behavior(self_ptr self, controller_context ctx) {
  auto boundary = make_boundary("garbage-collection", ctx.metrics);
  install_boundary(self, boundary);
  self->state.boundary = boundary;
  self->state.ctx = std::move(ctx);
  self->delayed_send(self, self->state.ctx.settings.garbage_collection_interval,
                     gc_tick_atom::value);
  return guarded_behavior<impl_actor::behavior_type>(
      boundary,
      [self](protocol::snapshot_ptr snap) {
        bool first_synced = snap && snap->synced && !self->state.seen_synced;
        self->state.snap = std::move(snap);
        if (first_synced) {
          // Start the VMs' grace clocks now rather than one interval after start.
          self->state.seen_synced = true;
          run_pass(self);
        }
      },
      [self](protocol::collect_atom) { run_pass(self); },
      [boundary](resume_atom, continuation& c) { boundary->run(c); },
      [self](gc_tick_atom) {
        // The next tick first: a pass that throws must not stop the timer.
        self->delayed_send(self, self->state.ctx.settings.garbage_collection_interval,
                           gc_tick_atom::value);
        run_pass(self);
      });
}

}  // namespace

protocol::garbage_collector_actor spawn_garbage_collector(caf::actor_system& system,
                                                          const controller_context& ctx) {
  auto impl = system.spawn(gc_behavior, ctx);
  return impl;
}

}  // namespace kp::actors
