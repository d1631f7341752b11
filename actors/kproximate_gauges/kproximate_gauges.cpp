// The kproximate gauges actor: keeps only the latest snapshot and the last VM count per region;
// the refresh timer comes from the actor clock.
#include "actors/kproximate_gauges/kproximate_gauges.hpp"

#include <map>
#include <memory>

#include <caf/all.hpp>

#include "actors/failure_boundary.hpp"
#include "actors/kproximate_gauges/kproximate_figures.hpp"

namespace kp::actors::kproximate_gauges {
namespace {

using namespace kp::protocol;
using tick_atom = caf::atom_constant<caf::atom("kpxtick")>;
using impl_actor = snapshot_listener::extend<caf::reacts_to<tick_atom>>;

struct gauges {
  prometheus::Gauge* kpnodes_total = nullptr;
  prometheus::Gauge* kpnodes_running = nullptr;
  prometheus::Gauge* cpu_provisioned = nullptr;
  prometheus::Gauge* memory_provisioned = nullptr;
  prometheus::Gauge* cpu_allocatable = nullptr;
  prometheus::Gauge* memory_allocatable = nullptr;
  prometheus::Gauge* cpu_allocated = nullptr;
  prometheus::Gauge* memory_allocated = nullptr;
};

struct gauges_state {
  controller_context ctx;
  kproximate_gauges_options opt;
  snapshot_ptr latest;
  // The snapshot the gauges were last computed from (weakly: the old snapshot is not kept
  // alive, and its control block cannot be reused while this refers to it): an unchanged
  // cluster is not summed again every period, which at 100,000 pods is most of the cost at rest.
  std::weak_ptr<const protocol::cluster_snapshot> figured;
  std::map<std::string, std::uint32_t> vms;  // by region, the last answer
  gauges g;
  boundary_ptr boundary;
};

using self_ptr = impl_actor::stateful_pointer<gauges_state>;

void publish_vms(gauges_state& st) {
  if (st.g.kpnodes_total == nullptr) return;
  double total = 0;
  for (const auto& [region, n] : st.vms) total += n;
  st.g.kpnodes_total->Set(total);
}

void refresh(self_ptr self) {
  auto& st = self->state;
  if (st.g.kpnodes_running == nullptr) return;  // no metrics to keep
  const bool unchanged = !st.figured.owner_before(st.latest) && !st.latest.owner_before(st.figured);
  if (st.latest && !unchanged) {
    st.figured = st.latest;
    auto f = figures_of(*st.latest);
    st.g.kpnodes_running->Set(f.kpnodes_running);
    st.g.cpu_provisioned->Set(f.cpu_provisioned);
    st.g.memory_provisioned->Set(f.memory_provisioned);
    st.g.cpu_allocatable->Set(f.cpu_allocatable);
    st.g.memory_allocatable->Set(f.memory_allocatable);
    st.g.cpu_allocated->Set(f.cpu_allocated);
    st.g.memory_allocated->Set(f.memory_allocated);
  }
  for (const auto& [name, region] : st.ctx.regions) {
    if (!region) continue;
    self->request(region, st.opt.inventory_timeout, inventory_atom::value)
        .then(guarded(st.boundary,
                      [self, name = name](const region_inventory& inv) {
                        self->state.vms[name] = inv.vms;
                        publish_vms(self->state);
                      }),
              [](const caf::error&) {
                // A slow or failing region keeps its last count; readiness reports the failure.
              });
  }
}

impl_actor::behavior_type gauges_behavior(self_ptr self, controller_context ctx,
                                          kproximate_gauges_options opt) {
  auto& st = self->state;
  st.ctx = std::move(ctx);
  st.opt = opt;
  if (st.ctx.metrics) {
    auto& m = *st.ctx.metrics;
    st.g.kpnodes_total = &m.kpnodes_total.Add({});
    st.g.kpnodes_running = &m.kpnodes_running.Add({});
    st.g.cpu_provisioned = &m.cpu_provisioned_total.Add({});
    st.g.memory_provisioned = &m.memory_provisioned_total.Add({});
    st.g.cpu_allocatable = &m.cpu_allocatable_total.Add({});
    st.g.memory_allocatable = &m.memory_allocatable_total.Add({});
    st.g.cpu_allocated = &m.cpu_allocated_total.Add({});
    st.g.memory_allocated = &m.memory_allocated_total.Add({});
  }
  st.boundary = make_boundary("kproximate_gauges", st.ctx.metrics);
  install_boundary(self, st.boundary);
  self->send(self, tick_atom::value);
  return guarded_behavior<impl_actor::behavior_type>(
      st.boundary,
      [self](snapshot_ptr& snap) {
        if (snap && snap->synced) self->state.latest = std::move(snap);
      },
      [self](tick_atom) {
        // The next tick first: a refresh that fails must not end the refreshing.
        self->delayed_send(self, self->state.opt.refresh, tick_atom::value);
        refresh(self);
      });
}

}  // namespace

protocol::snapshot_listener spawn_kproximate_gauges(caf::actor_system& system,
                                                    const controller_context& ctx,
                                                    kproximate_gauges_options options) {
  return system.spawn(gauges_behavior, ctx, options);
}

}  // namespace kp::actors::kproximate_gauges
