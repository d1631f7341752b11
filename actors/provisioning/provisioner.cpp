#include "actors/provisioning/provisioner.hpp"

#include <chrono>
#include <map>
#include <optional>
#include <set>

#include <caf/all.hpp>

#include "actors/continuation.hpp"
#include "actors/event_reasons.hpp"
#include "actors/failure_boundary.hpp"
#include "actors/provisioning/offering_gauges.hpp"
#include "actors/provisioning/provisionable.hpp"
#include "actors/provisioning/scheduling_input.hpp"
#include "core/capacity_buffer/capacity_buffer.hpp"
#include "core/model/labels.hpp"
#include "core/scheduling/host_fit.hpp"
#include "core/scheduling/reservation_pinning.hpp"
#include "core/scheduling/static_capacity.hpp"
#include "observability/logging.hpp"
#include "protocol/kube/model_translation.hpp"
#include "protocol/kube/nodeclaim_from_plan.hpp"

namespace kp::actors::provisioning {
namespace {

using provisioner_impl =
    protocol::provisioner_actor::extend<caf::reacts_to<resume_atom, continuation>>;

// How often a create that answers AlreadyExists is retried under a fresh name.
constexpr int max_name_attempts = 5;
// A NodeClaim we created but never saw in a snapshot is forgotten after this long (it was
// deleted before the informer caught up, or the informer is broken and will relist).
constexpr std::int64_t forget_unseen_ms = 5 * 60 * 1000;

struct created_claim {
  kube::node_claim object;
  model::nodeclaim model;          // as the next simulation sees it while in flight
  std::vector<std::string> pods;   // UIDs planned onto it
  std::vector<std::string> types;  // instance types, cheapest first (for the log)
  std::int64_t sent_ms = 0;
  int attempts = 1;
  bool confirmed = false;    // the API server accepted it
  bool seen = false;         // a snapshot has shown it (it may be deleted again before a batch)
  bool static_pool = false;  // made to hold a static NodePool's replicas
};

struct provisioner_state {
  // User-declared, so the state is no aggregate: CAF 0.17 constructs a state from the actor
  // pointer whenever it can, and C++20 would let an aggregate take it as its first member.
  provisioner_state() = default;
  protocol::snapshot_ptr latest;
  bool batch_waiting = false;  // a batch closed before the cluster was synced
  protocol::batch_closed waiting;
  bool inventory_pending = false;  // asking the regions for their hosts' free capacity
  bool rerun_after_inventory = false;
  protocol::batch_closed batch_after_inventory;
  std::map<std::string, created_claim> created;    // by name, until seen in a snapshot
  std::map<std::string, std::string> nominations;  // pod UID -> NodeClaim name
  // Static NodePools: surplus NodeClaims whose delete was sent, until a snapshot shows them
  // deleting or gone (counted as deleting meanwhile, so no second one goes too).
  std::set<std::string> static_deletes;
  bool static_retry_scheduled = false;
  bool static_offerings_pending = false;
  std::map<std::string, std::int64_t> static_held_back;  // pools held by limits.nodes (logged)
  // CapacityBuffer gate: the latest virtual pods, and whether a buffer round is under way.
  std::shared_ptr<const std::vector<model::pod>> buffer_pods;
  bool buffer_round_pending = false;
  bool buffer_round_again = false;
  std::string buffer_unplaced;  // the last "cannot keep room" log, so it is not repeated
  std::mt19937_64 rng{std::random_device{}()};
  obs::logger log{"provisioner"};
  static inline const char* name = "provisioner";
};

using provisioner_pointer = provisioner_impl::stateful_pointer<provisioner_state>;

struct env {
  controller_context ctx;
  provisioner_options options;
  prometheus::Histogram* duration = nullptr;
  prometheus::Gauge* unschedulable = nullptr;
  std::unique_ptr<offering_gauges> offerings;  // null without metrics
  boundary_ptr boundary;
};

protocol::event_record pod_event(const model::pod& pod, std::string type, event_reason reason,
                                 std::string message) {
  protocol::event_record e;
  e.kind = "Pod";
  e.api_version = "v1";
  e.namespace_ = pod.namespace_;
  e.name = pod.name;
  e.uid = pod.uid;
  e.type = std::move(type);
  e.reason = reason.str();
  e.message = std::move(message);
  return e;
}

const model::pod* pod_by_uid(const std::string& uid,
                             const std::map<std::string, const model::pod*>& index) {
  auto it = index.find(uid);
  return it == index.end() ? nullptr : it->second;
}

std::string fresh_name(provisioner_state& st, const std::string& pool) {
  for (;;) {
    std::string name = pool + "-" + kube::generated_name_suffix(st.rng);
    if (st.created.count(name)) continue;
    if (st.latest && protocol::cluster_snapshot::find(st.latest->node_claims, name)) continue;
    return name;
  }
}

// The NodeClaim a plan stands for: the object to create, and the model the next simulation sees
// while it is in flight. nullopt (logged) when the object does not translate.
std::optional<created_claim> stamp_claim(provisioner_state& st,
                                         const scheduling::planned_nodeclaim& planned,
                                         const scheduling_input& input, const kube::node_pool& pool,
                                         const std::string& name) {
  created_claim entry;
  entry.object = kube::nodeclaim_from_plan(planned, input.snap, pool, name);
  auto m = kube::to_model(entry.object);
  if (!m) {
    st.log.error("planned nodeclaim does not translate",
                 {{"nodeclaim", name}, {"error", m.error().message}});
    return std::nullopt;
  }
  entry.model = std::move(*m);
  entry.model.capacity = pessimistic_capacity(entry.model, input.snap.instance_types,
                                              input.snap.right_sized.memory_overhead_percent);
  entry.types = scheduling::instance_type_names(planned, input.snap);
  return entry;
}

void send_create(provisioner_pointer self, std::shared_ptr<env> e, const std::string& name);
// Runs with the instance types offered where the hosts have room, and the hosts' free room.
using offered_then = std::function<void(const std::vector<instance_types::instance_type>&,
                                        const std::vector<instance_types::zone_capacity>&)>;
void schedule_static_retry(provisioner_pointer self, std::shared_ptr<env> e);
void with_offerings(provisioner_pointer self, std::shared_ptr<env> e, offered_then then);
void reconcile_static(provisioner_pointer self, std::shared_ptr<env> e,
                      const std::vector<instance_types::instance_type>* offered = nullptr);

// The API server answered a create.
void on_created(provisioner_pointer self, std::shared_ptr<env> e, const std::string& name,
                result<kube::node_claim> answer) {
  auto& st = self->state;
  auto it = st.created.find(name);
  if (it == st.created.end()) return;
  auto& entry = it->second;
  if (answer) {
    entry.confirmed = true;
    const bool relaxed =
        entry.object.metadata.annotations[std::string(model::annotations::min_values_relaxed)] ==
        "true";
    if (e->ctx.metrics)
      e->ctx.metrics->nodeclaims_created
          .Add({{"reason", "provisioned"},
                {"nodepool", entry.model.nodepool},
                {"min_values_relaxed", relaxed ? "true" : "false"}})
          .Increment();
    std::string first;
    for (std::size_t i = 0; i < entry.types.size() && i < 5; ++i)
      first += (i ? ", " : "") + entry.types[i];
    st.log.info("created nodeclaim", {{"nodeclaim", name},
                                      {"nodepool", entry.model.nodepool},
                                      {"pods", std::to_string(entry.pods.size())},
                                      {"instance-types", first}});
    if (st.latest && st.latest->pods) {
      std::map<std::string, const model::pod*> index;
      std::set<std::string> wanted(entry.pods.begin(), entry.pods.end());
      for (const auto& [key, p] : *st.latest->pods)
        if (wanted.count(p.pod->uid)) index[p.pod->uid] = p.pod.get();
      for (const auto& uid : entry.pods)
        if (const auto* pod = pod_by_uid(uid, index))
          record_event(e->ctx, pod_event(*pod, "Normal", "Nominated",
                                         "Pod should schedule on: nodeclaim/" + name));
    }
    return;
  }
  const auto& err = answer.error();
  if (err.code == "already_exists" && entry.attempts < max_name_attempts) {
    // Someone has that name: move the claim and its pods to a fresh one.
    created_claim moved = std::move(entry);
    st.created.erase(it);
    std::string pool = moved.model.nodepool;
    std::string next = fresh_name(st, pool);
    moved.object.metadata.name = next;
    moved.model.name = next;
    ++moved.attempts;
    for (const auto& uid : moved.pods) st.nominations[uid] = next;
    st.created.emplace(next, std::move(moved));
    send_create(self, std::move(e), next);
    return;
  }
  st.log.error("creating nodeclaim failed",
               {{"nodeclaim", name}, {"code", err.code}, {"error", err.message}});
  if (entry.static_pool) schedule_static_retry(self, e);
  for (const auto& uid : entry.pods) {
    auto n = st.nominations.find(uid);
    if (n != st.nominations.end() && n->second == name) st.nominations.erase(n);
  }
  st.created.erase(it);
}

void send_create(provisioner_pointer self, std::shared_ptr<env> e, const std::string& name) {
  auto& entry = self->state.created.at(name);
  entry.sent_ms = e->ctx.wall_clock_ms();
  auto handle = provisioner_impl{self};
  e->ctx.kube->create<kube::node_claim>(
      entry.object,
      resume_in<result<kube::node_claim>>(handle, [self, e, name](result<kube::node_claim> r) {
        on_created(self, e, name, std::move(r));
      }));
}

// Forget what the snapshot now shows, and nominations that no longer hold.
void reconcile(provisioner_state& st, const controller_context& ctx) {
  if (!st.latest) return;
  const auto& snap = *st.latest;
  const auto now = ctx.wall_clock_ms();
  for (auto it = st.created.begin(); it != st.created.end();) {
    // Kept until the create is answered even if the informer was faster: the answer still
    // counts the metric and sends the Nominated events.
    const bool seen =
        it->second.seen || protocol::cluster_snapshot::find(snap.node_claims, it->first) != nullptr;
    const bool stale = now - it->second.sent_ms > forget_unseen_ms;
    it = it->second.confirmed && (seen || stale) ? st.created.erase(it) : std::next(it);
  }
  if (st.nominations.empty()) return;
  std::set<std::string> pending;
  if (snap.pods)
    for (const auto& [key, p] : *snap.pods)
      if (st.nominations.count(p.pod->uid) && is_provisionable(*p.pod, snap))
        pending.insert(p.pod->uid);
  for (auto it = st.nominations.begin(); it != st.nominations.end();) {
    const auto* claim = protocol::cluster_snapshot::find(snap.node_claims, it->second);
    bool holds = pending.count(it->first) &&
                 (claim ? !claim->metadata.deletion_timestamp : st.created.count(it->second) > 0);
    it = holds ? std::next(it) : st.nominations.erase(it);
  }
}

void run_batch(provisioner_pointer self, std::shared_ptr<env> e, const protocol::batch_closed& b,
               const std::vector<instance_types::instance_type>& types,
               const std::vector<instance_types::zone_capacity>& hosts) {
  using clock = std::chrono::steady_clock;
  auto& st = self->state;
  const auto started = clock::now();
  reconcile(st, e->ctx);
  const auto& snap = *st.latest;

  std::vector<model::nodeclaim> in_flight;
  in_flight.reserve(st.created.size());
  for (const auto& [name, c] : st.created) in_flight.push_back(c.model);
  auto input = build_scheduling_input(snap, in_flight, st.nominations, types,
                                      {e->ctx.settings.vm_memory_overhead_percent, hosts});
  if (e->offerings) e->offerings->publish(input.snap.instance_types);

  batch_report report;
  report.batch = b.id;
  report.pending_pods = input.snap.pods.size();

  std::string skipped;
  for (const auto& s : input.skipped_pools) skipped += "; " + s;
  for (const auto& [pod, why] : input.invalid_pods) {
    record_event(e->ctx,
                 pod_event(*pod, "Warning", "FailedScheduling", "Failed to schedule pod, " + why));
    ++report.unschedulable;
  }

  scheduling::plan plan;
  if (!input.snap.pods.empty()) {
    scheduling::options opts;
    opts.preferences = e->ctx.settings.preference_policy == config::preference_mode::ignore
                           ? scheduling::preference_policy::ignore
                           : scheduling::preference_policy::respect;
    opts.min_values = e->ctx.settings.min_values_policy == config::min_values_mode::best_effort
                          ? scheduling::min_values_policy::best_effort
                          : scheduling::min_values_policy::strict;
    const auto solve_start = clock::now();
    plan = scheduling::provision(input.snap, opts);
    scheduling::keep_to_fitting_hosts(plan, input.snap);
    scheduling::pin_reservations(plan, input.snap);
    report.solve_seconds = std::chrono::duration<double>(clock::now() - solve_start).count();
    if (e->duration) e->duration->Observe(report.solve_seconds);
  }

  for (const auto& err : plan.errors) {
    const auto* pod = input.pending[err.pod];
    record_event(e->ctx, pod_event(*pod, "Warning", "FailedScheduling",
                                   "Failed to schedule pod, " + err.reason + skipped));
    ++report.unschedulable;
  }
  if (e->unschedulable) e->unschedulable->Set(static_cast<double>(report.unschedulable));

  for (const auto& bind : plan.bindings) {
    const auto* pod = input.pending[bind.pod];
    if (bind.in_flight) st.nominations[pod->uid] = bind.node;
    record_event(e->ctx, pod_event(*pod, "Normal", "Nominated",
                                   std::string("Pod should schedule on: ") +
                                       (bind.in_flight ? "nodeclaim/" : "node/") + bind.node));
    ++report.bindings;
  }

  for (const auto& planned : plan.nodeclaims) {
    auto pool = input.pools.find(planned.nodepool);
    if (pool == input.pools.end()) continue;  // cannot happen: plans only use given pools
    const std::string name = fresh_name(st, planned.nodepool);
    auto stamped = stamp_claim(st, planned, input, *pool->second, name);
    if (!stamped) continue;
    auto& entry = *stamped;
    for (std::size_t i : planned.pods) {
      const auto& uid = input.pending[i]->uid;
      entry.pods.push_back(uid);
      st.nominations[uid] = name;
    }
    st.created.emplace(name, std::move(entry));
    ++report.nodeclaims;
    if (e->ctx.kube) {
      send_create(self, e, name);
    } else {
      st.log.warn("no Kubernetes client; nodeclaim not created", {{"nodeclaim", name}});
    }
  }
  report.total_seconds = std::chrono::duration<double>(clock::now() - started).count();
  st.log.info("scheduled batch", {{"batch", std::to_string(b.id)},
                                  {"pods", std::to_string(report.pending_pods)},
                                  {"nodeclaims", std::to_string(report.nodeclaims)},
                                  {"bindings", std::to_string(report.bindings)},
                                  {"unschedulable", std::to_string(report.unschedulable)},
                                  {"solve_ms", std::to_string(report.solve_seconds * 1000)}});
  if (e->options.on_batch) e->options.on_batch(report);
}

// Static NodePools (StaticCapacity gate, Karpenter's static provisioning and deprovisioning
// controllers): on every synced snapshot, create the NodeClaims a pool lacks from its template
// and delete its surplus through the normal termination path (the NodeClaim's finalizer).
// Creating waits for the regions' offerings (with_offerings), then runs again with them.
void reconcile_static(provisioner_pointer self, std::shared_ptr<env> e,
                      const std::vector<instance_types::instance_type>* offered) {
  auto& st = self->state;
  if (!e->ctx.settings.gates.static_capacity || !st.latest || !st.latest->synced) return;
  const auto& snap = *st.latest;
  if (!snap.node_pools) return;
  bool any = false;
  for (const auto& [key, np] : *snap.node_pools) any |= np->spec.replicas.has_value();
  if (!any) return;
  reconcile(st, e->ctx);
  for (auto it = st.static_deletes.begin(); it != st.static_deletes.end();) {
    const auto* c = protocol::cluster_snapshot::find(snap.node_claims, *it);
    it = c == nullptr || c->metadata.deletion_timestamp ? st.static_deletes.erase(it)
                                                        : std::next(it);
  }
  std::vector<model::nodeclaim> in_flight;
  for (const auto& [name, c] : st.created) in_flight.push_back(c.model);
  auto input = build_scheduling_input(snap, in_flight, st.nominations,
                                      offered ? *offered : e->ctx.instance_types.get());
  for (auto& nc : input.snap.nodeclaims)
    if (st.static_deletes.count(nc->name)) {
      auto deleting = *nc;
      deleting.terminating = true;
      nc = model::share(std::move(deleting));
    }
  std::map<std::string, std::int64_t> held_back;
  bool wants_offerings = false;
  for (const auto& p : scheduling::plan_static_capacity(input.snap)) {
    const std::string current = std::to_string(p.count.running);
    if (p.held_back > 0) {
      held_back[p.nodepool] = p.held_back;
      auto was = st.static_held_back.find(p.nodepool);
      if (was == st.static_held_back.end() || was->second != p.held_back)
        st.log.info("nodepool node limit reached",
                    {{"nodepool", p.nodepool},
                     {"limit", std::to_string(p.node_limit.value_or(0))},
                     {"nodes", std::to_string(p.count.total())},
                     {"desired", std::to_string(p.replicas)}});
    }
    if (p.create > 0 && !offered) wants_offerings = true;
    if (p.create > 0 && offered) {
      auto pool = input.pools.find(p.nodepool);
      std::string why;
      auto planned = scheduling::static_nodeclaim(input.snap, p.nodepool, {}, why);
      if (pool == input.pools.end() || !planned) {
        st.log.error("static nodepool cannot stamp out a nodeclaim",
                     {{"nodepool", p.nodepool}, {"error", why}});
        schedule_static_retry(self, e);
        continue;
      }
      st.log.info("provisioning nodeclaims to satisfy replica count",
                  {{"nodepool", p.nodepool},
                   {"current", current},
                   {"desired", std::to_string(p.replicas)},
                   {"provision-count", std::to_string(p.create)}});
      for (std::int64_t i = 0; i < p.create; ++i) {
        const std::string name = fresh_name(st, p.nodepool);
        auto entry = stamp_claim(st, *planned, input, *pool->second, name);
        if (!entry) break;
        entry->static_pool = true;
        st.created.emplace(name, std::move(*entry));
        if (e->ctx.kube) send_create(self, e, name);
      }
    }
    if (p.remove.empty()) continue;
    st.log.info("deprovisioning nodeclaims to satisfy replica count",
                {{"nodepool", p.nodepool},
                 {"current", current},
                 {"desired", std::to_string(p.replicas)},
                 {"deprovision-count", std::to_string(p.remove.size())}});
    for (const auto& name : p.remove) {
      // A claim not yet seen has no object to delete; the next snapshot decides again.
      if (!protocol::cluster_snapshot::find(snap.node_claims, name) || !e->ctx.kube) continue;
      st.static_deletes.insert(name);
      auto handle = provisioner_impl{self};
      e->ctx.kube->remove<kube::node_claim>(
          {"", name}, {}, resume_in<status>(handle, [self, e, name](status r) {
            auto& st = self->state;
            if (r) {
              st.log.info("deleted nodeclaim",
                          {{"nodeclaim", name}, {"reason", "overprovisioned"}});
              return;
            }
            st.static_deletes.erase(name);
            st.log.error(
                "deleting nodeclaim failed",
                {{"nodeclaim", name}, {"code", r.error().code}, {"error", r.error().message}});
            schedule_static_retry(self, e);
          }));
    }
  }
  st.static_held_back = std::move(held_back);
  if (!wants_offerings || st.static_offerings_pending) return;
  st.static_offerings_pending = true;
  with_offerings(self, e,
                 [self, e](const std::vector<instance_types::instance_type>& types,
                           const std::vector<instance_types::zone_capacity>&) {
                   self->state.static_offerings_pending = false;
                   e->boundary->contain("static nodepools",
                                        [&] { reconcile_static(self, e, &types); });
                 });
}

// A failed static create or delete is tried again after a while even if the cluster is quiet.
void schedule_static_retry(provisioner_pointer self, std::shared_ptr<env> e) {
  auto& st = self->state;
  if (st.static_retry_scheduled) return;
  st.static_retry_scheduled = true;
  self->delayed_send(self, std::chrono::seconds(10), resume_atom::value,
                     continuation{[self, e] {
                                    self->state.static_retry_scheduled = false;
                                    reconcile_static(self, e);
                                  },
                                  "static nodepools"});
}

// Offerings follow the hosts' free capacity: every region reports its hosts (an unanswered
// region offers nothing this time), and each instance type is offered in the zones that can
// still hold it; `then` runs inside the actor with those types (and confines its own
// failures). Without regions (tests), the types are used as given.
void with_offerings(provisioner_pointer self, std::shared_ptr<env> e, offered_then then) {
  if (e->ctx.regions.empty()) {
    then(e->ctx.instance_types.get(), {});
    return;
  }
  auto remaining = std::make_shared<std::size_t>(e->ctx.regions.size());
  auto zones = std::make_shared<std::vector<instance_types::zone_capacity>>();
  auto one_done = [e, remaining, zones, then] {
    if (--*remaining != 0) return;
    auto types = e->ctx.instance_types.get();
    if (!zones->empty()) instance_types::build_offerings(types, *zones);
    then(types, *zones);
  };
  for (const auto& [name, region] : e->ctx.regions) {
    self->request(region, std::chrono::seconds(10), protocol::inventory_atom::value)
        .then(guarded(e->boundary,
                      [zones, one_done, name = name](protocol::region_inventory& inv) {
                        for (const auto& h : inv.capacity) {
                          zones->push_back({name, h.host, h.free_cpus, h.free_memory_bytes,
                                            h.online, h.free_pci});
                        }
                        one_done();
                      }),
              guarded(e->boundary, [self, one_done, name = name](caf::error& err) {
                self->state.log.warn("region did not report its hosts; no offerings there",
                                     {{"region", name}, {"reason", caf::to_string(err)}});
                one_done();
              }));
  }
}

// CapacityBuffer gate (Karpenter's buffer provisioning): the virtual pods of ready buffers are
// placed on registered nodes and in-flight NodeClaims where room is left, and NodeClaims are
// created for the rest. Real pending pods are not part of this round: batches place them first
// and see buffer room as free, so a real pod always displaces buffer room, and the next round
// makes room for the buffer again. Virtual pods get no Events and no nominations.
void run_buffer_round(provisioner_pointer self, std::shared_ptr<env> e,
                      const std::vector<instance_types::instance_type>& types,
                      const std::vector<instance_types::zone_capacity>& hosts) {
  auto& st = self->state;
  if (!st.latest || !st.latest->synced || !st.buffer_pods || st.buffer_pods->empty()) return;
  reconcile(st, e->ctx);
  std::vector<model::nodeclaim> in_flight;
  for (const auto& [name, c] : st.created) in_flight.push_back(c.model);
  auto input = build_scheduling_input(*st.latest, in_flight, st.nominations, types,
                                      {e->ctx.settings.vm_memory_overhead_percent, hosts});
  input.snap.pods = *st.buffer_pods;
  for (auto& p : input.snap.pods) p.node_name.clear();
  input.pending.clear();
  scheduling::options opts;
  opts.min_values = e->ctx.settings.min_values_policy == config::min_values_mode::best_effort
                        ? scheduling::min_values_policy::best_effort
                        : scheduling::min_values_policy::strict;
  auto plan = scheduling::provision(input.snap, opts);
  scheduling::keep_to_fitting_hosts(plan, input.snap);
  scheduling::pin_reservations(plan, input.snap);
  std::string unplaced;
  for (const auto& err : plan.errors)
    if (unplaced.empty()) unplaced = input.snap.pods[err.pod].name + ": " + err.reason;
  if (!unplaced.empty() && unplaced != st.buffer_unplaced)
    st.log.warn("capacity buffer room cannot be kept",
                {{"unplaced", std::to_string(plan.errors.size())}, {"first", unplaced}});
  st.buffer_unplaced = unplaced;
  for (const auto& planned : plan.nodeclaims) {
    auto pool = input.pools.find(planned.nodepool);
    if (pool == input.pools.end()) continue;
    const std::string name = fresh_name(st, planned.nodepool);
    auto stamped = stamp_claim(st, planned, input, *pool->second, name);
    if (!stamped) continue;
    std::set<std::string> buffers;
    for (std::size_t i : planned.pods)
      buffers.insert(kp::capacity_buffer::buffer_key_of(input.snap.pods[i]));
    std::string names;
    for (const auto& b : buffers) names += (names.empty() ? "" : ",") + b;
    st.log.info("creating nodeclaim for capacity buffer room",
                {{"nodeclaim", name},
                 {"nodepool", planned.nodepool},
                 {"capacitybuffers", names},
                 {"virtual-pods", std::to_string(planned.pods.size())}});
    st.created.emplace(name, std::move(*stamped));
    if (e->ctx.kube) send_create(self, e, name);
  }
}

void schedule_buffer_round(provisioner_pointer self, std::shared_ptr<env> e) {
  auto& st = self->state;
  if (st.buffer_round_pending) {
    st.buffer_round_again = true;
    return;
  }
  st.buffer_round_pending = true;
  with_offerings(self, e,
                 [self, e](const std::vector<instance_types::instance_type>& types,
                           const std::vector<instance_types::zone_capacity>& hosts) {
                   auto& st = self->state;
                   e->boundary->contain("capacity buffers",
                                        [&] { run_buffer_round(self, e, types, hosts); });
                   st.buffer_round_pending = false;
                   if (st.buffer_round_again) {
                     st.buffer_round_again = false;
                     schedule_buffer_round(self, e);
                   }
                 });
}

// Before each batch the regions report their hosts (with_offerings); a batch closed meanwhile
// runs once the current one is done.
void schedule_with_offerings(provisioner_pointer self, std::shared_ptr<env> e,
                             protocol::batch_closed b) {
  auto& st = self->state;
  if (st.inventory_pending) {
    st.batch_after_inventory = b;  // the newest batch runs once the current one is done
    st.rerun_after_inventory = true;
    return;
  }
  st.inventory_pending = true;
  with_offerings(self, e,
                 [self, e, b](const std::vector<instance_types::instance_type>& types,
                              const std::vector<instance_types::zone_capacity>& hosts) {
                   auto& st = self->state;
                   // A batch that fails is confined to itself: the next batch must still run.
                   e->boundary->contain("batch " + std::to_string(b.id),
                                        [&] { run_batch(self, e, b, types, hosts); });
                   st.inventory_pending = false;
                   if (st.rerun_after_inventory) {
                     st.rerun_after_inventory = false;
                     schedule_with_offerings(self, e, st.batch_after_inventory);
                   }
                 });
}

provisioner_impl::behavior_type provisioner_behavior(provisioner_pointer self,
                                                     controller_context ctx,
                                                     provisioner_options options) {
  auto e = std::make_shared<env>();
  e->ctx = std::move(ctx);
  e->options = std::move(options);
  if (e->ctx.metrics) {
    e->offerings = std::make_unique<offering_gauges>(e->ctx.metrics->registry);
    e->duration = &e->ctx.metrics->scheduler_scheduling_duration.Add(
        {{"controller", "provisioner"}}, obs::duration_buckets());
    e->unschedulable =
        &e->ctx.metrics->scheduler_unschedulable_pods.Add({{"controller", "provisioner"}});
  }
  auto boundary = make_boundary("provisioner", e->ctx.metrics);
  e->boundary = boundary;
  install_boundary(self, boundary);
  return guarded_behavior<provisioner_impl::behavior_type>(
      boundary,
      [self, e](protocol::snapshot_ptr& snap) {
        auto& st = self->state;
        st.latest = std::move(snap);
        // A claim created and deleted again between two batches (a registration timeout) must
        // not keep its pods nominated: remember that the informer saw it.
        for (auto& [name, c] : st.created) {
          if (!c.seen && st.latest &&
              protocol::cluster_snapshot::find(st.latest->node_claims, name))
            c.seen = true;
        }
        if (st.batch_waiting && st.latest && st.latest->synced) {
          st.batch_waiting = false;
          schedule_with_offerings(self, e, st.waiting);
        }
        reconcile_static(self, e);
      },
      [self, e](protocol::batch_closed& b) {
        auto& st = self->state;
        if (!st.latest || !st.latest->synced) {
          // Like Karpenter, never schedule against a partial view of the cluster.
          st.batch_waiting = true;
          st.waiting = b;
          return;
        }
        schedule_with_offerings(self, e, b);
      },
      [self, e](protocol::buffer_pods& b) {
        if (!e->ctx.settings.gates.capacity_buffer) return;
        self->state.buffer_pods = std::move(b.pods);
        schedule_buffer_round(self, e);
      },
      [boundary](resume_atom, continuation& c) { boundary->run(c); });
}

}  // namespace

protocol::provisioner_actor spawn_provisioner(caf::actor_system& system,
                                              const controller_context& ctx,
                                              provisioner_options options) {
  return system.spawn(provisioner_behavior, ctx, std::move(options));
}

}  // namespace kp::actors::provisioning
