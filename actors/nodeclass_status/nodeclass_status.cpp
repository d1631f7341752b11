// One evaluation at a time: ask every region for its inventory, read the Secrets the node
// classes name, evaluate, write. A snapshot that arrives meanwhile marks the state dirty and one
// more evaluation follows, so bursts of snapshots cost one pass.
#include "actors/nodeclass_status/nodeclass_status.hpp"

#include <optional>
#include <set>

#include <caf/all.hpp>

#include "actors/continuation.hpp"
#include "actors/failure_boundary.hpp"
#include "actors/nodeclass_status/nodeclass_conditions.hpp"
#include "actors/status_conditions.hpp"
#include "actors/status_refusals.hpp"
#include "core/model/drift_hash.hpp"
#include "observability/logging.hpp"
#include "protocol/kube/drift_hash.hpp"
#include "protocol/kube/model_translation.hpp"
#include "protocol/kube/patches.hpp"

namespace kp::actors::nodeclass_status {
namespace {

using namespace std::chrono_literals;
using tick_atom = caf::atom_constant<caf::atom("ncstick")>;
using impl_actor =
    protocol::nodeclass_status_actor::extend<caf::reacts_to<resume_atom, continuation>,
                                             caf::reacts_to<tick_atom>>;

struct status_state {
  controller_context ctx;
  protocol::snapshot_ptr snapshot;
  obs::logger log{"nodeclass.status"};
  status_refusals refusals;
  bool busy = false;
  bool dirty = false;
  // The last pass found every node class Ready. Until then a snapshot runs a pass even when its
  // inputs did not change: a region's first inventory may be what is missing, and provisioning
  // waits for Ready.
  bool all_ready = false;
  caf::actor_clock::time_point busy_since;
  boundary_ptr boundary;
  static inline const char* name = "nodeclass-status";
};

using self_ptr = impl_actor::stateful_pointer<status_state>;

template <class T>
std::function<void(result<T>)> in_actor(self_ptr self, std::function<void(result<T>)> f) {
  return resume_in<result<T>>(impl_actor{self}, std::move(f));
}

void run(self_ptr self);

void done(self_ptr self) {
  auto& st = self->state;
  st.busy = false;
  if (st.dirty) {
    st.dirty = false;
    run(self);
  }
}

void announce(const status_state& st, const kube::proxmox_node_class& nc,
              const kube::condition& before, const kube::condition& after) {
  std::string text = after.type + "=" + after.status + " (" + after.reason + ")" +
                     (after.message.empty() ? "" : ": " + after.message);
  if (after.status == "True") {
    st.log.info("node class condition changed", {{"nodeclass", nc.metadata.name},
                                                 {"condition", after.type},
                                                 {"status", after.status},
                                                 {"reason", after.reason}});
  } else {
    st.log.warn("node class condition changed", {{"nodeclass", nc.metadata.name},
                                                 {"condition", after.type},
                                                 {"status", after.status},
                                                 {"reason", after.reason},
                                                 {"message", after.message}});
  }
  (void)before;
  protocol::event_record e;
  e.kind = "ProxmoxNodeClass";
  e.api_version = "karpenter.proxmox.sinextra.dev/v1alpha1";
  e.name = nc.metadata.name;
  e.uid = nc.metadata.uid;
  e.type = after.status == "False" ? "Warning" : "Normal";
  e.reason = after.reason;
  e.message = text;
  record_event(st.ctx, std::move(e));
}

// Writes the node class hash annotations drift compares (protocol/kube/drift_hash.hpp); the
// NodeClaims get them at launch. A failed write is retried on the next snapshot.
void stamp_hash(self_ptr self, const kube::proxmox_node_class& nc) {
  auto& st = self->state;
  std::string hash = kube::nodeclass_hash(nc);
  st.log.info("stamping node class hash", {{"nodeclass", nc.metadata.name}, {"hash", hash}});
  st.ctx.kube->patch<kube::proxmox_node_class>(
      {"", nc.metadata.name}, kube::patch_type::merge,
      kube::annotations_merge_patch({{std::string(model::annotations::nodeclass_hash), hash},
                                     {std::string(model::annotations::nodeclass_hash_version),
                                      std::string(model::drift_hash_versions::nodeclass)}},
                                    {}),
      in_actor<kube::proxmox_node_class>(
          self, [self, name = nc.metadata.name](result<kube::proxmox_node_class> r) {
            if (!r) {
              self->state.log.warn("writing the node class hash failed",
                                   {{"nodeclass", name}, {"error", r.error().message}});
            }
          }));
}

void evaluate_all(self_ptr self, std::shared_ptr<std::vector<protocol::region_inventory>> invs,
                  std::shared_ptr<secret_map> secrets) {
  auto& st = self->state;
  auto snapshot = st.snapshot;
  auto now = kube::format_rfc3339(st.ctx.wall_clock_ms());
  auto pending = std::make_shared<int>(1);
  auto one_done = [self, pending] {
    if (--*pending == 0) done(self);
  };
  st.all_ready = true;
  if (snapshot->node_classes) {
    for (const auto& [key, nc] : *snapshot->node_classes) {
      (void)key;
      if (nc->metadata.deletion_timestamp) continue;
      // One node class that cannot be evaluated must not hold up the others.
      std::optional<nodeclass_verdict> verdict;
      st.boundary->contain("ProxmoxNodeClass " + nc->metadata.name, [&] {
        verdict = evaluate_node_class(*nc, *snapshot, *invs, *secrets,
                                      nodeclaim::template_secret_scope_of(st.ctx.settings));
      });
      if (!verdict) {
        st.all_ready = false;
        continue;
      }
      const auto& v = *verdict;
      if (v.ready.status != "True") st.all_ready = false;
      if (!kube::nodeclass_hash_current(*nc)) stamp_hash(self, *nc);
      auto updated = *nc;
      auto& conds = updated.status.conditions;
      for (const auto* c : {&v.template_ready, &v.metadata_ready, &v.ready}) {
        actors::set_condition(conds, c->type, c->status, c->reason, c->message, now,
                              nc->metadata.generation);
      }
      if (actors::same_conditions(conds, nc->status.conditions)) continue;
      const auto generation = nc->metadata.generation;
      auto body = conditions_digest(conds);
      if (st.refusals.refused(nc->metadata.name, generation, body)) continue;
      for (const auto& after : conds) {
        const auto* before = actors::find_condition(nc->status.conditions, after.type);
        if (before == nullptr || before->status != after.status || before->reason != after.reason ||
            before->message != after.message) {
          announce(st, *nc, before ? *before : kube::condition{}, after);
        }
      }
      ++*pending;
      st.ctx.kube->update_status<kube::proxmox_node_class>(
          updated, in_actor<kube::proxmox_node_class>(
                       self, [self, one_done, name = nc->metadata.name, generation,
                              body = std::move(body)](result<kube::proxmox_node_class> r) {
                         auto& st = self->state;
                         if (r) {
                           st.refusals.forget(name);
                         } else if (status_refusals::is_refusal(r.error())) {
                           // The same write would be refused again: not before the generation
                           // changes.
                           st.refusals.report(r.error(), "ProxmoxNodeClass", name, generation, body,
                                              st.ctx.metrics.get(), st.log);
                         } else {
                           // A conflict: a newer object is coming and its snapshot runs us again;
                           // other errors wait for the next snapshot or tick (no tight loop).
                           st.log.warn("writing the node class status failed",
                                       {{"nodeclass", name},
                                        {"error", r.error().code + ": " + r.error().message}});
                         }
                         one_done();
                       }));
    }
  }
  one_done();
}

void read_secrets(self_ptr self, std::shared_ptr<std::vector<protocol::region_inventory>> invs) {
  auto& st = self->state;
  std::set<std::string> wanted;
  if (st.snapshot->node_classes) {
    for (const auto& [key, nc] : *st.snapshot->node_classes) {
      (void)key;
      for (auto& s : secrets_needed(*nc, nodeclaim::template_secret_scope_of(st.ctx.settings)))
        wanted.insert(s);
    }
  }
  auto secrets = std::make_shared<secret_map>();
  auto pending = std::make_shared<int>(1);
  auto one_done = [self, invs, secrets, pending] {
    if (--*pending == 0) evaluate_all(self, invs, secrets);
  };
  for (const auto& key : wanted) {
    auto slash = key.find('/');
    ++*pending;
    st.ctx.kube->get<kube::secret>(
        {key.substr(0, slash), key.substr(slash + 1)},
        in_actor<kube::secret>(self, [secrets, key, one_done](result<kube::secret> r) {
          fetched_secret f;
          if (r) {
            f.secret = std::move(*r);
          } else {
            f.error_code = r.error().code;
            f.error_message = r.error().message;
          }
          (*secrets)[key] = std::move(f);
          one_done();
        }));
  }
  one_done();
}

void run(self_ptr self) {
  auto& st = self->state;
  if (st.busy) {
    st.dirty = true;
    return;
  }
  if (!st.snapshot || !st.snapshot->node_classes || st.snapshot->node_classes->empty()) return;
  st.busy = true;
  st.busy_since = self->clock().now();
  auto invs = std::make_shared<std::vector<protocol::region_inventory>>();
  auto pending = std::make_shared<int>(1);
  auto one_done = [self, invs, pending] {
    if (--*pending == 0) read_secrets(self, invs);
  };
  for (const auto& [name, region] : st.ctx.regions) {
    ++*pending;
    self->request(region, std::chrono::seconds(30), protocol::inventory_atom::value)
        .then(
            [invs, one_done](protocol::region_inventory& inv) {
              invs->push_back(std::move(inv));
              one_done();
            },
            [invs, one_done, name = name](caf::error& e) {
              protocol::region_inventory inv;
              inv.region = name;
              inv.detail = "no answer from the region actor: " + caf::to_string(e);
              invs->push_back(std::move(inv));
              one_done();
            });
  }
  one_done();
}

// What a pass reads from a snapshot: node classes and templates. Once every class is Ready, a
// snapshot that changed none of them (pods, Nodes and NodeClaims come and go in a burst) would
// render every node class's templates again for nothing; inventories and Secrets change outside
// snapshots and the tick reads them.
bool same_status_inputs(const protocol::cluster_snapshot& a, const protocol::cluster_snapshot& b) {
  return a.node_classes == b.node_classes && a.templates == b.templates &&
         a.unmanaged_templates == b.unmanaged_templates;
}

impl_actor::behavior_type status_behavior(self_ptr self, controller_context ctx) {
  self->state.ctx = std::move(ctx);
  auto period = std::chrono::duration_cast<std::chrono::milliseconds>(
      self->state.ctx.settings.proxmox_inventory_interval);
  if (period < 1s) period = 1s;
  self->delayed_send(self, period, tick_atom::value);
  auto boundary = make_boundary("nodeclass_status", self->state.ctx.metrics);
  self->state.boundary = boundary;
  install_boundary(self, boundary);
  return guarded_behavior<impl_actor::behavior_type>(
      boundary,
      [self](protocol::snapshot_ptr snapshot) {
        // Before every informer listed once, a missing object proves nothing.
        if (!snapshot || !snapshot->synced) return;
        auto& st = self->state;
        const bool unchanged = st.snapshot && same_status_inputs(*st.snapshot, *snapshot);
        st.snapshot = std::move(snapshot);
        if (!unchanged || !st.all_ready) run(self);
      },
      [boundary](resume_atom, continuation& c) { boundary->run(c); },
      [self, period](tick_atom) {
        self->delayed_send(self, period, tick_atom::value);
        auto& st = self->state;
        // A pass whose step failed never finishes by itself: give it up after a few periods.
        if (st.busy && self->clock().now() - st.busy_since > 5 * period) {
          st.log.warn("an evaluation did not finish; starting afresh");
          st.busy = false;
        }
        run(self);
      });
}

}  // namespace

protocol::nodeclass_status_actor spawn_nodeclass_status(caf::actor_system& system,
                                                        const controller_context& ctx) {
  return system.spawn(status_behavior, ctx);
}

}  // namespace kp::actors::nodeclass_status
