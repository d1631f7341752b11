#pragma once
// Internal to sim/pve: the QEMU guest agent of running VMs: ping, exec, exec-status and network
// interfaces. The agent answers once the simulated guest has booted (guest_fleet).
#include "sim/pve/api_call.hpp"

namespace kp::sim::pve {

class world_model;
class api_router;

class agent_api {
 public:
  explicit agent_api(world_model& world) : world_(world) {}
  void add_routes(api_router& router);

 private:
  api_reply post_agent_ping(api_call& c);
  api_reply post_agent_exec(api_call& c);
  api_reply get_agent_exec_status(api_call& c);
  api_reply get_agent_interfaces(api_call& c);

  world_model& world_;
};

}  // namespace kp::sim::pve
