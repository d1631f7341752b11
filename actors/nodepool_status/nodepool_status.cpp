// The NodePool status actor. Writes are merge patches; each completes on an io thread and comes
// back as a `resume` message. A pool with a write in flight is left alone until it completes,
// then looked at again against the newest snapshot. Snapshots lag behind our own writes, so a
// snapshot still showing the version a write was based on (or one we produced) does not cause
// the same write again.
#include "actors/nodepool_status/nodepool_status.hpp"

#include <map>
#include <set>

#include <caf/all.hpp>

#include "actors/nodepool_status/nodepool_status_plan.hpp"
#include "actors/status_refusals.hpp"
#include "actors/status_writer.hpp"
#include "observability/logging.hpp"
#include "protocol/kube/drift_hash.hpp"

namespace kp::actors::nodepool_status {
namespace {

using namespace kp::protocol;

struct pool_record {
  int in_flight = 0;
  std::set<std::string> own_versions;  // resourceVersions our writes were based on or produced
  std::optional<kube::node_pool_status> written_status;
  std::string written_hash;
  // Gauge label sets this actor added, so they can be removed when they no longer apply.
  std::map<std::string, prometheus::Gauge*> usage, limits;
};

struct status_state {
  controller_context ctx;
  nodepool_status_options opt;
  snapshot_ptr latest;
  std::map<std::string, pool_record> pools;
  status_refusals refusals;
  // A pool gone from the snapshot whose record stays while a write is in flight: the next
  // snapshot must look again, whatever changed.
  bool kept_gone_pool = false;
  obs::logger log{"nodepool.status"};
  boundary_ptr boundary;
};

using self_ptr = status_writer_ptr<status_state>;

double units(const model::quantity& q) {
  return static_cast<double>(q.milli) / 1000.0;
}

void set_gauges(prometheus::Family<prometheus::Gauge>& family,
                std::map<std::string, prometheus::Gauge*>& added, const std::string& pool,
                const model::resource_list& values) {
  for (auto it = added.begin(); it != added.end();) {
    if (values.has(it->first)) {
      ++it;
      continue;
    }
    family.Remove(it->second);
    it = added.erase(it);
  }
  for (const auto& [name, q] : values.items()) {
    auto& g = added[name];
    if (g == nullptr) g = &family.Add({{"resource_type", name}, {"nodepool", pool}});
    g->Set(units(q));
  }
}

void drop_gauges(status_state& st, pool_record& rec) {
  if (!st.ctx.metrics) return;
  for (auto& [name, g] : rec.usage) st.ctx.metrics->nodepools_usage.Remove(g);
  for (auto& [name, g] : rec.limits) st.ctx.metrics->nodepools_limit.Remove(g);
  rec.usage.clear();
  rec.limits.clear();
}

void reconcile(self_ptr self, const kube::node_pool& pool);

// What a status write says, without the times (refusals are remembered by it).
std::string status_digest(const kube::node_pool_status& s) {
  std::string out = conditions_digest(s.conditions) + std::to_string(s.nodes);
  for (const auto& [name, q] : s.resources) out += name + "=" + q + ";";
  return out;
}

void write_done(self_ptr self, const std::string& name, const result<kube::node_pool>& r,
                const char* what, std::int64_t generation, const std::string& digest) {
  auto& st = self->state;
  auto& rec = st.pools[name];
  --rec.in_flight;
  if (!r && std::string(what) == "status" && status_refusals::is_refusal(r.error())) {
    // The same write would be refused again: not before the pool's generation changes.
    st.refusals.report(r.error(), "NodePool", name, generation, digest, st.ctx.metrics.get(),
                       st.log);
    rec.written_status.reset();
  } else if (!r) {
    st.log.warn("nodepool write failed", {{"nodepool", name},
                                          {"write", what},
                                          {"code", r.error().code},
                                          {"error", r.error().message}});
    // Forget what we believed written, so the next snapshot decides afresh.
    if (std::string(what) == "status")
      rec.written_status.reset();
    else
      rec.written_hash.clear();
  } else {
    rec.own_versions.insert(r->metadata.resource_version);
    if (std::string(what) == "status") st.refusals.forget(name);
  }
  if (rec.in_flight > 0 || !st.latest) return;
  if (const auto* pool = cluster_snapshot::find(st.latest->node_pools, name)) {
    reconcile(self, *pool);
  }
}

void reconcile(self_ptr self, const kube::node_pool& pool) {
  auto& st = self->state;
  const auto& name = pool.metadata.name;
  auto& rec = st.pools[name];
  const auto& snap = *st.latest;
  const auto now = st.ctx.wall_clock_ms();
  auto desired = desired_status(pool, snap, now);

  if (st.ctx.metrics) {
    auto usage = usage_of(name, snap);
    set_gauges(st.ctx.metrics->nodepools_usage, rec.usage, name, usage.resources);
    auto limits = model::parse_resource_list(pool.spec.limits);
    set_gauges(st.ctx.metrics->nodepools_limit, rec.limits, name,
               limits ? *limits : model::resource_list{});
  }

  if (rec.in_flight > 0) return;
  const auto& rv = pool.metadata.resource_version;
  const bool ours = rec.own_versions.count(rv) > 0;
  if (!ours) {
    // A version we did not write: whatever we remember is superseded.
    rec.own_versions = {rv};
    rec.written_status.reset();
    rec.written_hash.clear();
  }

  const auto generation = pool.metadata.generation;
  const auto digest = status_digest(desired);
  const bool status_needed =
      !equivalent(pool.status, desired) &&
      !(ours && rec.written_status && equivalent(*rec.written_status, desired)) &&
      !st.refusals.refused(name, generation, digest);
  const auto hash = kube::nodepool_hash(pool);
  const bool hash_needed =
      !kube::nodepool_hash_current(pool) && !(ours && rec.written_hash == hash);

  if (status_needed) {
    ++rec.in_flight;
    rec.written_status = desired;
    if (st.opt.on_write) st.opt.on_write(name, "status");
    st.ctx.kube->patch<kube::node_pool>(
        {"", name}, kube::patch_type::merge, status_patch(pool.status, desired),
        resume_in<result<kube::node_pool>>(
            status_writer_actor{self},
            [self, name, generation, digest](result<kube::node_pool> r) {
              write_done(self, name, r, "status", generation, digest);
            },
            "NodePool " + name),
        "status");
  }
  if (hash_needed) {
    ++rec.in_flight;
    rec.written_hash = hash;
    if (st.opt.on_write) st.opt.on_write(name, "hash");
    st.ctx.kube->patch<kube::node_pool>({"", name}, kube::patch_type::merge, hash_patch(pool),
                                        resume_in<result<kube::node_pool>>(
                                            status_writer_actor{self},
                                            [self, name, generation](result<kube::node_pool> r) {
                                              write_done(self, name, r, "hash", generation, "");
                                            },
                                            "NodePool " + name));
  }
}

// A NodePool's status and gauges are made of NodePools, NodeClaims, Nodes and node classes only
// (pods never count): a snapshot that changed none of them, as under pod churn, changes nothing.
bool same_status_inputs(const protocol::cluster_snapshot& a, const protocol::cluster_snapshot& b) {
  return a.node_pools == b.node_pools && a.node_claims == b.node_claims && a.nodes == b.nodes &&
         a.node_classes == b.node_classes;
}

void on_snapshot(self_ptr self, snapshot_ptr snap) {
  auto& st = self->state;
  if (!snap || !snap->synced) return;
  const bool unchanged = st.latest && !st.kept_gone_pool && same_status_inputs(*st.latest, *snap);
  st.latest = std::move(snap);
  if (unchanged) return;
  st.kept_gone_pool = false;
  std::set<std::string> seen;
  if (st.latest->node_pools) {
    for (const auto& [key, pool] : *st.latest->node_pools) {
      if (!is_managed(*pool)) continue;
      seen.insert(pool->metadata.name);
      // Confined to the pool: the others still get their status.
      st.boundary->contain("NodePool " + pool->metadata.name,
                           [&, &pool = pool] { reconcile(self, *pool); });
    }
  }
  for (auto it = st.pools.begin(); it != st.pools.end();) {
    if (seen.count(it->first) || it->second.in_flight > 0) {
      if (!seen.count(it->first)) st.kept_gone_pool = true;
      ++it;
      continue;
    }
    drop_gauges(st, it->second);
    it = st.pools.erase(it);
  }
}

}  // namespace

protocol::nodepool_status_actor spawn_nodepool_status(caf::actor_system& system,
                                                      const controller_context& ctx,
                                                      nodepool_status_options options) {
  return spawn_status_writer<status_state, on_snapshot>(system, "nodepool_status", ctx,
                                                        std::move(options));
}

}  // namespace kp::actors::nodepool_status
