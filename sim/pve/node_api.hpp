#pragma once
// Internal to sim/pve: the hosts as Proxmox nodes: /nodes, a node's status, network and CPU
// models. The node entry is shared with /cluster/resources.
#include <boost/json/object.hpp>

#include "sim/pve/api_call.hpp"
#include "sim/pve/topology.hpp"

namespace kp::sim::pve {

class world_model;
class api_router;

// A host as /nodes (resources_form false) or /cluster/resources lists it: stats while it is
// online, the last known maxima while its RRD data lasts, status "offline" once unreachable.
boost::json::object node_entry(const world_model& world, const host_spec& h, bool resources_form);

class node_api {
 public:
  explicit node_api(world_model& world) : world_(world) {}
  void add_routes(api_router& router);

 private:
  api_reply list(api_call& c);
  api_reply status_of(api_call& c);
  api_reply network(api_call& c);

  world_model& world_;
};

}  // namespace kp::sim::pve
