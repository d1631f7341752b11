// The fleet keeps a map name -> child; children are monitored, not linked (one failing claim must
// not take the others down), and are told to exit when the fleet goes (the state's destructor).
// A child the fleet stops itself leaves the map first, so only a child that stopped on its own is
// restarted.
#include "actors/nodeclaim/nodeclaim_fleet.hpp"

#include <algorithm>
#include <map>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <caf/all.hpp>

#include "actors/event_reasons.hpp"
#include "actors/failure_boundary.hpp"
#include "actors/nodeclaim/launch_plan.hpp"
#include "actors/nodeclaim/nodeclaim_actor.hpp"
#include "observability/logging.hpp"
#include "protocol/messages.hpp"

namespace kp::actors::nodeclaim {
namespace {

using fleet_impl =
    protocol::nodeclaim_fleet_actor::extend<caf::reacts_to<protocol::restart_atom, std::string>>;

struct child {
  std::string uid;  // a claim deleted and made again under the same name gets a fresh actor
  protocol::nodeclaim_actor actor;  // invalid while a restart waits
  restart_schedule restarts;
};

struct fleet_state {
  shared_context ctx;  // handed to every child; never null
  claim_actor_spawner spawner;
  restart_policy policy;
  std::map<std::string, child> children;
  std::map<std::string, std::vector<std::uint32_t>> claimed;  // region -> VMIDs last sent
  protocol::snapshot_ptr latest;
  prometheus::Counter* restarted = nullptr;  // null without metrics
  obs::logger log{"nodeclaim-fleet"};

  ~fleet_state() {
    for (auto& [name, c] : children) {
      (void)name;
      if (c.actor) caf::anon_send_exit(c.actor, caf::exit_reason::user_shutdown);
    }
  }

  static inline const char* name = "nodeclaim-fleet";
};

using fleet_ptr = fleet_impl::stateful_pointer<fleet_state>;

// Tells each region the VMIDs NodeClaims name (any NodeClaim's providerID, launched or not, ours
// or another provider's), whenever they change: the region never hands out such a VMID, even
// when its VM vanished, and allocates nothing before it knows them.
void send_claimed_vmids(fleet_ptr self, const protocol::cluster_snapshot& snapshot) {
  auto& st = self->state;
  std::map<std::string, std::vector<std::uint32_t>> claimed;
  for (const auto& [name, region] : st.ctx->regions) claimed[name];
  if (snapshot.node_claims) {
    for (const auto& [key, claim] : *snapshot.node_claims) {
      (void)key;
      auto id = claim ? protocol::parse_provider_id(claim->status.provider_id) : std::nullopt;
      if (id && claimed.count(id->region) != 0) claimed[id->region].push_back(id->vmid);
    }
  }
  for (auto& [name, vmids] : claimed) {
    std::sort(vmids.begin(), vmids.end());
    auto sent = st.claimed.find(name);
    if (sent != st.claimed.end() && sent->second == vmids) continue;
    st.claimed[name] = vmids;
    self->send(st.ctx->regions.at(name), protocol::claimed_vmids{vmids});
  }
}

void start_child(fleet_ptr self, const std::string& name, child& c) {
  auto& st = self->state;
  c.actor = st.spawner(self->system(), st.ctx, name);
  c.restarts.started(self->clock().now());
  self->monitor(c.actor);
}

// What NodeClaim actors read: NodeClaims, Nodes, node classes, templates, bootstrap tokens and
// NodeOverlays, never pods. A snapshot that changed none of those (pod churn) is not sent to
// every child.
bool same_for_children(const protocol::cluster_snapshot& a, const protocol::cluster_snapshot& b) {
  return a.node_claims == b.node_claims && a.nodes == b.nodes && a.node_classes == b.node_classes &&
         a.templates == b.templates && a.unmanaged_templates == b.unmanaged_templates &&
         a.bootstrap_tokens == b.bootstrap_tokens && a.node_overlays == b.node_overlays;
}

// The snapshot as children keep it: without the pods, so that thousands of children holding an
// older snapshot (under pod churn, for ever) do not keep its pods alive.
protocol::snapshot_ptr without_pods(const protocol::cluster_snapshot& snapshot) {
  static const protocol::shared_pod_models no_pods =
      std::make_shared<const protocol::pod_model_map>();
  auto view = std::make_shared<protocol::cluster_snapshot>(snapshot);
  view->pods = no_pods;
  return view;
}

void on_snapshot(fleet_ptr self, protocol::snapshot_ptr full) {
  auto& st = self->state;
  // Before every informer listed once, a missing node class or Node proves nothing.
  if (!full || !full->synced) return;
  if (st.latest && same_for_children(*st.latest, *full)) return;
  auto snapshot = without_pods(*full);
  st.latest = snapshot;
  send_claimed_vmids(self, *snapshot);
  std::map<std::string, std::string> present;  // name -> uid
  if (snapshot->node_claims) {
    for (const auto& [key, claim] : *snapshot->node_claims) {
      (void)key;
      if (!claim || !is_ours(*claim)) continue;
      present[claim->metadata.name] = claim->metadata.uid;
    }
  }
  for (auto it = st.children.begin(); it != st.children.end();) {
    auto p = present.find(it->first);
    bool gone = p == present.end() || p->second != it->second.uid;
    if (gone) {
      if (it->second.actor) {
        self->demonitor(it->second.actor.address());
        caf::anon_send_exit(it->second.actor, caf::exit_reason::user_shutdown);
      }
      it = st.children.erase(it);
    } else {
      ++it;
    }
  }
  for (const auto& [name, uid] : present) {
    auto it = st.children.find(name);
    if (it == st.children.end()) {
      it = st.children.emplace(name, child{uid, {}, restart_schedule(st.policy)}).first;
      start_child(self, name, it->second);
    }
    // A child waiting for its restart gets the latest snapshot when it starts.
    if (it->second.actor) self->send(it->second.actor, snapshot);
  }
}

// A child stopped without being told to: schedule its restart and say so.
void on_child_down(fleet_ptr self, const caf::down_msg& down) {
  auto& st = self->state;
  for (auto& [name, c] : st.children) {
    if (!c.actor || c.actor.address() != down.source) continue;
    c.actor = nullptr;
    auto delay = c.restarts.stopped(self->clock().now());
    auto reason = caf::to_string(down.reason);
    st.log.error(
        "the actor of a NodeClaim stopped; restarting it",
        {{"nodeclaim", name}, {"reason", reason}, {"delay_ms", std::to_string(delay.count())}});
    if (st.restarted != nullptr) st.restarted->Increment();
    protocol::event_record e;
    e.kind = "NodeClaim";
    e.api_version = "karpenter.sh/v1";
    e.name = name;
    e.uid = c.uid;
    e.type = "Warning";
    e.reason = event_reason("LifecycleRestarted").str();
    e.message = "The controller's work on this NodeClaim stopped (" + reason + "); it resumes in " +
                std::to_string(delay.count()) + " ms from the cluster and Proxmox state";
    record_event(*st.ctx, std::move(e));
    self->delayed_send(self, delay, protocol::restart_atom::value, name);
    return;
  }
}

void on_restart(fleet_ptr self, const std::string& name) {
  auto& st = self->state;
  auto it = st.children.find(name);
  // Gone meanwhile, or already made afresh for a new claim of the same name.
  if (it == st.children.end() || it->second.actor) return;
  start_child(self, name, it->second);
  st.log.info("restarted the actor of a NodeClaim", {{"nodeclaim", name}});
  if (st.latest) self->send(it->second.actor, st.latest);
}

fleet_impl::behavior_type fleet_behavior(fleet_ptr self, controller_context ctx,
                                         claim_actor_spawner spawner, restart_policy policy) {
  auto& st = self->state;
  auto boundary = make_boundary("nodeclaim-fleet", ctx.metrics);
  install_boundary(self, boundary);
  if (ctx.metrics) st.restarted = &ctx.metrics->actor_restarts.Add({{"actor", "nodeclaim"}});
  st.ctx = std::make_shared<const controller_context>(std::move(ctx));
  st.spawner = std::move(spawner);
  st.policy = policy;
  self->set_down_handler(
      guarded(boundary, [self](caf::down_msg& down) { on_child_down(self, down); }));
  return guarded_behavior<fleet_impl::behavior_type>(
      boundary, [self](protocol::snapshot_ptr snapshot) { on_snapshot(self, std::move(snapshot)); },
      [self](protocol::restart_atom, const std::string& name) { on_restart(self, name); });
}

}  // namespace

protocol::nodeclaim_fleet_actor spawn_nodeclaim_fleet(caf::actor_system& system,
                                                      const controller_context& ctx) {
  return spawn_nodeclaim_fleet(
      system, ctx, [](caf::actor_system& sys, const shared_context& c, const std::string& name) {
        return spawn_nodeclaim_actor(sys, c, name);
      });
}

protocol::nodeclaim_fleet_actor spawn_nodeclaim_fleet(caf::actor_system& system,
                                                      const controller_context& ctx,
                                                      claim_actor_spawner spawner,
                                                      restart_policy policy) {
  auto impl = system.spawn(fleet_behavior, ctx, std::move(spawner), policy);
  return impl;
}

}  // namespace kp::actors::nodeclaim
