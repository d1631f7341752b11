#pragma once
// Internal to sim/pve: cluster-wide endpoints: version, cluster status, cluster resources (with
// pvestatd's RRD lag and expiry) and nextid.
#include "sim/pve/api_call.hpp"

namespace kp::sim::pve {

class world_model;
class api_router;
class pool_api;

class cluster_api {
 public:
  cluster_api(world_model& world, const pool_api& pools) : world_(world), pools_(pools) {}
  void add_routes(api_router& router);

 private:
  api_reply version(api_call& c);
  api_reply status(api_call& c);
  api_reply resources(api_call& c);
  api_reply nextid(api_call& c);

  world_model& world_;
  const pool_api& pools_;
};

}  // namespace kp::sim::pve
