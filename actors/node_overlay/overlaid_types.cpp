#include "actors/node_overlay/overlaid_types.hpp"

#include <set>
#include <string>
#include <utility>

#include "protocol/kube/node_overlay_translation.hpp"

namespace kp::actors::node_overlay {

std::vector<overlays::overlay> overlays_of(const protocol::cluster_snapshot& snap) {
  std::vector<overlays::overlay> out;
  if (!snap.node_overlays) return out;
  out.reserve(snap.node_overlays->size());
  for (const auto& [key, o] : *snap.node_overlays) out.push_back(kube::to_overlay(*o));
  return out;
}

std::vector<instance_types::zone_capacity> selected_zones(const protocol::cluster_snapshot& snap) {
  std::vector<instance_types::zone_capacity> zones;
  std::set<std::pair<std::string, std::string>> seen;
  if (!snap.node_classes) return zones;
  for (const auto& [key, nc] : *snap.node_classes) {
    for (const auto& z : nc->status.selected_zones) {
      auto a = z.find('/');
      if (a == std::string::npos) continue;
      auto b = z.find('/', a + 1);
      std::string region = z.substr(0, a);
      std::string zone = z.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
      if (seen.emplace(region, zone).second)
        zones.push_back({region, zone, 1 << 20, std::int64_t{1} << 50, true});
    }
  }
  return zones;
}

std::vector<instance_types::instance_type> with_node_class_offerings(
    std::vector<instance_types::instance_type> types, const protocol::cluster_snapshot& snap,
    const std::vector<std::string>& fallback_regions) {
  for (const auto& t : types)
    if (!t.offerings.empty()) return types;
  auto zones = selected_zones(snap);
  if (zones.empty())
    for (const auto& region : fallback_regions)
      zones.push_back({region, "", 1 << 20, std::int64_t{1} << 50, true});
  if (!zones.empty()) instance_types::build_offerings(types, zones);
  return types;
}

overlays::overlaid_types overlay_types(const std::vector<instance_types::instance_type>& types,
                                       const protocol::cluster_snapshot& snap) {
  return overlays::apply_overlays(types, overlays_of(snap));
}

std::vector<instance_types::instance_type> overlaid(
    std::vector<instance_types::instance_type> types, const protocol::cluster_snapshot& snap) {
  if (!snap.node_overlays || snap.node_overlays->empty()) return types;
  return overlay_types(types, snap).types;
}

}  // namespace kp::actors::node_overlay
