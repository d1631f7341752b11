#pragma once
// The kproximate gauges actor: every refresh period (5 s, as kproximate) it sets kproximate's
// eight gauges from the latest snapshot (kproximate_figures) and from the regions' inventories
// (kpnodes_total = our VMs in every region, any status). A region that does not answer keeps
// its last count.
#include <chrono>

#include <caf/fwd.hpp>

#include "actors/controller_context.hpp"
#include "protocol/controller_messages.hpp"

namespace kp::actors::kproximate_gauges {

struct kproximate_gauges_options {
  std::chrono::milliseconds refresh{std::chrono::seconds(5)};
  std::chrono::milliseconds inventory_timeout{std::chrono::seconds(4)};
};

protocol::snapshot_listener spawn_kproximate_gauges(caf::actor_system& system,
                                                    const controller_context& ctx,
                                                    kproximate_gauges_options options = {});

}  // namespace kp::actors::kproximate_gauges
