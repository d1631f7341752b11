#include "cmd/karpenter-proxmox/plan/live_placement.hpp"

namespace kp::plan {

namespace region = actors::region;

std::map<std::string, region_hosts> placement_view(const live_world& world,
                                                   const topology::node_settings_file* file,
                                                   std::vector<std::string>& notes) {
  std::map<std::string, region_hosts> out;
  for (const auto& r : world.regions) {
    if (!r.error.empty()) {
      notes.push_back("region " + r.region + " not read (offers nothing): " + r.error);
      continue;
    }
    auto& view = out[r.region];
    view.reading = &r;
    for (const auto& [name, host] : r.hosts) {
      auto topology = region::host_topology_of(r.region, host, r.vms, file);
      if (!topology) {
        if (host.online()) {
          notes.push_back("region " + r.region + " host " + name +
                          " left out of placement: " + topology.error().message);
        }
        continue;
      }
      view.hosts.push_back(
          region::placement_host_of(host, topology->topology, r.vms, {}, world.cluster_name));
    }
  }
  return out;
}

std::vector<instance_types::instance_type> offered_types(
    std::vector<instance_types::instance_type> types,
    const std::map<std::string, region_hosts>& regions) {
  std::vector<instance_types::zone_capacity> zones;
  for (const auto& [name, view] : regions)
    for (const auto& h : view.hosts)
      zones.push_back({name, h.name(), h.free_cpus(), h.free_memory(), h.online});
  if (!zones.empty()) instance_types::build_offerings(types, zones);
  return types;
}

double offering_price(const instance_types::instance_type& type, const std::string& region,
                      const std::string& host, double fallback) {
  for (const auto& o : type.offerings)
    if (o.region == region && o.zone == host) return o.price;
  return fallback;
}

}  // namespace kp::plan
