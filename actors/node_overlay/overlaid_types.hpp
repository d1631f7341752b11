#pragma once
// The instance types as the NodeOverlays of a snapshot make them: what provisioning,
// consolidation, launch and the price metrics all read, so they agree. While the NodeOverlay
// feature gate is off nothing watches NodeOverlays, the snapshot holds none and the types come
// back unchanged.
#include <string>
#include <vector>

#include "core/instance_types/instance_type.hpp"
#include "core/node_overlay/node_overlay.hpp"
#include "protocol/cluster_snapshot.hpp"

namespace kp::actors::node_overlay {

// The snapshot's NodeOverlays in the form core/node_overlay applies, by name.
std::vector<overlays::overlay> overlays_of(const protocol::cluster_snapshot& snap);

// One zone per "region/zone/templateVMID" the ready node classes selected (status
// selectedZones), with room for every type: where the hosts have not reported room yet.
std::vector<instance_types::zone_capacity> selected_zones(const protocol::cluster_snapshot& snap);

// Types without any offering get one per zone the ready node classes selected (status
// selectedZones, "region/zone/templateVMID"), with room for every type: overlays select
// offerings, so a catalogue without any (before the regions report capacity) still needs them.
// When no node class names a zone, each of `fallback_regions` offers every type in an unnamed
// zone (the host is not chosen yet).
std::vector<instance_types::instance_type> with_node_class_offerings(
    std::vector<instance_types::instance_type> types, const protocol::cluster_snapshot& snap,
    const std::vector<std::string>& fallback_regions = {});

// `types` with the snapshot's overlays applied, and the verdict on each overlay.
overlays::overlaid_types overlay_types(const std::vector<instance_types::instance_type>& types,
                                       const protocol::cluster_snapshot& snap);

// Just the types (moved through untouched when the snapshot has no overlays).
std::vector<instance_types::instance_type> overlaid(
    std::vector<instance_types::instance_type> types, const protocol::cluster_snapshot& snap);

}  // namespace kp::actors::node_overlay
