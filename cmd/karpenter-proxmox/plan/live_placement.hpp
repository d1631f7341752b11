#pragma once
// Placement's view of the regions a live_world read, as each region actor rebuilds it after a
// refresh: every host whose topology resolves (status, topology VM, NODE_SETTING_FILE) with what
// its VMs hold, and the instance types offered on those hosts' free capacity, as before each
// provisioning batch. Shared by `plan` (which places on it) and `view` (which shows it).
#include <map>
#include <string>
#include <vector>

#include "cmd/karpenter-proxmox/plan/live_world.hpp"
#include "core/instance_types/instance_type.hpp"
#include "core/placement/place_vm.hpp"
#include "core/topology/node_settings.hpp"

namespace kp::plan {

struct region_hosts {
  const region_reading* reading = nullptr;
  std::vector<placement::host_state> hosts;
  placement::placement_cursor cursor;
};

// By region. A region not read, and an online host whose topology does not resolve, are left
// out with a note saying why.
std::map<std::string, region_hosts> placement_view(const live_world& world,
                                                   const topology::node_settings_file* file,
                                                   std::vector<std::string>& notes);

// `types` with one offering per host of `regions` (build_offerings); unchanged without hosts.
std::vector<instance_types::instance_type> offered_types(
    std::vector<instance_types::instance_type> types,
    const std::map<std::string, region_hosts>& regions);

// The type's price on `host` of `region`, else `fallback`.
double offering_price(const instance_types::instance_type& type, const std::string& region,
                      const std::string& host, double fallback);

}  // namespace kp::plan
