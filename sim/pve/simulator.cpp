// The composition of pve-sim: the shared world, one object per API area, the router in front of
// them and the /sim/v1 controls.
#include "sim/pve/simulator.hpp"

#include "sim/pve/access_control.hpp"
#include "sim/pve/agent_api.hpp"
#include "sim/pve/api_router.hpp"
#include "sim/pve/cluster_api.hpp"
#include "sim/pve/firewall_api.hpp"
#include "sim/pve/node_api.hpp"
#include "sim/pve/pci_mapping_api.hpp"
#include "sim/pve/pool_api.hpp"
#include "sim/pve/qemu_config_api.hpp"
#include "sim/pve/qemu_lifecycle_api.hpp"
#include "sim/pve/qemu_power_api.hpp"
#include "sim/pve/request_stats.hpp"
#include "sim/pve/sim_control.hpp"
#include "sim/pve/storage_api.hpp"
#include "sim/pve/task_board.hpp"
#include "sim/pve/world_model.hpp"

namespace kp::sim::pve {

struct simulator::parts {
  parts(boost::asio::io_context& io, simulator_options options)
      : world(io, std::move(options)),
        tasks(world),
        access(world),
        pools(world),
        pci(world),
        cluster(world, pools),
        nodes(world),
        storage(world, tasks),
        firewall(world),
        agent(world),
        qemu_config(world, tasks, pci),
        qemu_power(world, tasks, pci),
        qemu_lifecycle(world, tasks, pools, qemu_config, qemu_power),
        router(world, access, stats),
        control(world, stats, pci) {
    access.add_routes(router);
    cluster.add_routes(router);
    nodes.add_routes(router);
    pools.add_routes(router);
    pci.add_routes(router);
    storage.add_routes(router);
    qemu_config.add_routes(router);
    qemu_lifecycle.add_routes(router);
    qemu_power.add_routes(router);
    firewall.add_routes(router);
    agent.add_routes(router);
    tasks.add_routes(router);
  }

  world_model world;
  request_stats stats;
  task_board tasks;
  access_control access;
  pool_api pools;
  pci_mapping_api pci;
  cluster_api cluster;
  node_api nodes;
  storage_api storage;
  firewall_api firewall;
  agent_api agent;
  qemu_config_api qemu_config;
  qemu_power_api qemu_power;
  qemu_lifecycle_api qemu_lifecycle;
  api_router router;
  sim_control control;
};

simulator::simulator(boost::asio::io_context& io, simulator_options options)
    : parts_(std::make_unique<parts>(io, std::move(options))) {}

simulator::~simulator() = default;

void simulator::handle(const transport::http_request& request,
                       std::function<void(transport::http_response)> reply) {
  std::string path(request.path());
  if (path.rfind("/sim/v1/", 0) == 0 || path == "/sim/v1")
    parts_->control.handle(request, std::move(reply));
  else
    parts_->router.handle(request, std::move(reply));
}

}  // namespace kp::sim::pve
