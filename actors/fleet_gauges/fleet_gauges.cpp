// The fleet gauges actor: NodeClaim phase gauges and lifecycle histograms from snapshots, host
// gauges from the regions' inventories; the refresh timer comes from the actor clock.
#include "actors/fleet_gauges/fleet_gauges.hpp"

#include <map>
#include <set>

#include <caf/all.hpp>

#include "actors/fleet_gauges/claim_lifecycle.hpp"
#include "observability/known_series.hpp"

namespace kp::actors::fleet_gauges {
namespace {

using namespace kp::protocol;
using tick_atom = caf::atom_constant<caf::atom("fleettick")>;
using impl_actor = snapshot_listener::extend<caf::reacts_to<tick_atom>>;

struct numa_series {
  prometheus::Gauge* free_cpus = nullptr;
  prometheus::Gauge* free_memory = nullptr;
};

struct host_series {
  prometheus::Gauge* online = nullptr;
  prometheus::Gauge* free_cpus = nullptr;
  prometheus::Gauge* free_memory = nullptr;
  std::map<int, numa_series> numa;  // by NUMA node id
};

// Which steps of a claim have been seen finished (observed or, if before the start, skipped).
struct seen_steps {
  bool launch = false, registration = false, initialization = false;
};

struct fleet_state {
  controller_context ctx;
  fleet_gauges_options opt;
  // Steps that finished before this second are history: not observed again after a restart.
  std::int64_t history_before_ms = 0;
  std::set<std::string> primed_pools;
  std::map<std::string, std::map<claim_phase, prometheus::Gauge*>> phase_series;  // by pool
  std::map<std::string, seen_steps> seen;                                         // by claim UID
  std::map<std::string, std::map<std::string, host_series>> hosts;                // region -> host
};

using self_ptr = impl_actor::stateful_pointer<fleet_state>;

void observe(fleet_state& st, const std::optional<step_time>& step, bool& seen,
             prometheus::Family<prometheus::Histogram>& family, const std::string& pool) {
  if (!step || seen) return;
  seen = true;
  if (step->finished_ms < st.history_before_ms) return;
  family.Add({{"nodepool", pool}}, obs::duration_buckets()).Observe(step->seconds);
}

void prime_pool(fleet_state& st, const std::string& pool) {
  if (st.primed_pools.insert(pool).second) obs::prime_nodepool_series(*st.ctx.metrics, pool);
}

void observe_steps(fleet_state& st, const cluster_snapshot& snap) {
  auto& m = *st.ctx.metrics;
  std::set<std::string> live;
  if (snap.node_claims) {
    for (const auto& [name, claim] : *snap.node_claims) {
      const auto key = claim->metadata.uid.empty() ? name : claim->metadata.uid;
      live.insert(key);
      const auto pool = nodepool_of(*claim);
      const auto steps = steps_of(*claim);
      auto& seen = st.seen[key];
      observe(st, steps.launch, seen.launch, m.nodeclaims_launch_duration, pool);
      observe(st, steps.registration, seen.registration, m.nodeclaims_registration_duration, pool);
      observe(st, steps.initialization, seen.initialization, m.nodeclaims_initialization_duration,
              pool);
    }
  }
  for (auto it = st.seen.begin(); it != st.seen.end();)
    it = live.count(it->first) ? std::next(it) : st.seen.erase(it);
}

void publish_claims(fleet_state& st, const cluster_snapshot& snap) {
  auto& m = *st.ctx.metrics;
  std::map<std::string, std::map<claim_phase, double>> counts;  // every pool, even without claims
  if (snap.node_pools)
    for (const auto& [name, pool] : *snap.node_pools) counts[name];
  if (snap.node_claims)
    for (const auto& [name, claim] : *snap.node_claims)
      ++counts[nodepool_of(*claim)][phase_of(*claim)];
  for (const auto& [pool, by_phase] : counts) prime_pool(st, pool);
  observe_steps(st, snap);

  for (const auto& [pool, by_phase] : counts) {
    auto& series = st.phase_series[pool];
    for (auto phase : all_claim_phases) {
      auto& gauge = series[phase];
      if (gauge == nullptr) {
        gauge = &m.nodeclaims_by_phase.Add(
            {{"nodepool", pool}, {"phase", std::string(to_string(phase))}});
      }
      auto n = by_phase.find(phase);
      gauge->Set(n == by_phase.end() ? 0 : n->second);
    }
  }
  // A NodePool gone with its last claim loses its phase series (its counters stay, as counters
  // do).
  for (auto it = st.phase_series.begin(); it != st.phase_series.end();) {
    if (counts.count(it->first)) {
      ++it;
      continue;
    }
    for (auto& [phase, gauge] : it->second) m.nodeclaims_by_phase.Remove(gauge);
    it = st.phase_series.erase(it);
  }
}

void remove_numa(obs::karpenter_metrics& m, const numa_series& n) {
  m.numa_free_cpus.Remove(n.free_cpus);
  m.numa_free_memory.Remove(n.free_memory);
}

// One series pair per NUMA node the host reports; a node no longer reported loses its pair.
void publish_numa(obs::karpenter_metrics& m, const std::string& region, const host_capacity& h,
                  std::map<int, numa_series>& known) {
  std::set<int> present;
  for (const auto& n : h.numa) {
    present.insert(n.numa);
    auto& s = known[n.numa];
    if (s.free_cpus == nullptr) {
      const prometheus::Labels labels{
          {"region", region}, {"host", h.host}, {"numa", std::to_string(n.numa)}};
      s.free_cpus = &m.numa_free_cpus.Add(labels);
      s.free_memory = &m.numa_free_memory.Add(labels);
    }
    s.free_cpus->Set(static_cast<double>(n.free_cpus));
    s.free_memory->Set(static_cast<double>(n.free_memory_bytes));
  }
  for (auto it = known.begin(); it != known.end();) {
    if (present.count(it->first)) {
      ++it;
      continue;
    }
    remove_numa(m, it->second);
    it = known.erase(it);
  }
}

void publish_hosts(fleet_state& st, const std::string& region, const region_inventory& inv) {
  auto& m = *st.ctx.metrics;
  auto& known = st.hosts[region];
  std::set<std::string> present;
  for (const auto& h : inv.capacity) {
    present.insert(h.host);
    auto& s = known[h.host];
    if (s.online == nullptr) {
      const prometheus::Labels labels{{"region", region}, {"host", h.host}};
      s.online = &m.host_online.Add(labels);
      s.free_cpus = &m.host_free_cpus.Add(labels);
      s.free_memory = &m.host_free_memory.Add(labels);
    }
    s.online->Set(h.online ? 1 : 0);
    s.free_cpus->Set(static_cast<double>(h.free_cpus));
    s.free_memory->Set(static_cast<double>(h.free_memory_bytes));
    publish_numa(m, region, h, s.numa);
  }
  for (auto it = known.begin(); it != known.end();) {
    if (present.count(it->first)) {
      ++it;
      continue;
    }
    m.host_online.Remove(it->second.online);
    m.host_free_cpus.Remove(it->second.free_cpus);
    m.host_free_memory.Remove(it->second.free_memory);
    for (auto& [id, n] : it->second.numa) remove_numa(m, n);
    it = known.erase(it);
  }
}

void refresh_hosts(self_ptr self) {
  for (const auto& [name, region] : self->state.ctx.regions) {
    if (!region) continue;
    self->request(region, self->state.opt.inventory_timeout, inventory_atom::value)
        .then(
            [self, name = name](const region_inventory& inv) {
              if (inv.refreshed) publish_hosts(self->state, name, inv);
            },
            [](const caf::error&) {
              // A slow or failing region keeps its last figures; readiness reports the failure.
            });
  }
}

impl_actor::behavior_type fleet_behavior(self_ptr self, controller_context ctx,
                                         fleet_gauges_options opt) {
  auto& st = self->state;
  st.ctx = std::move(ctx);
  st.opt = opt;
  // Transition times are whole seconds: anything in this second or later is new.
  st.history_before_ms = st.ctx.wall_clock_ms() / 1000 * 1000;
  if (st.ctx.metrics) self->send(self, tick_atom::value);
  return {
      [self](snapshot_ptr& snap) {
        if (snap && snap->synced && self->state.ctx.metrics) publish_claims(self->state, *snap);
      },
      [self](tick_atom) {
        self->delayed_send(self, self->state.opt.refresh, tick_atom::value);
        refresh_hosts(self);
      },
  };
}

}  // namespace

protocol::snapshot_listener spawn_fleet_gauges(caf::actor_system& system,
                                               const controller_context& ctx,
                                               fleet_gauges_options options) {
  return system.spawn(fleet_behavior, ctx, options);
}

}  // namespace kp::actors::fleet_gauges
