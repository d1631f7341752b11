#include "sim/pve/simulator.hpp"

#include "sim/pve/pve_world.hpp"

namespace kp::sim::pve {

simulator::simulator(boost::asio::io_context& io, simulator_options options)
    : world_(std::make_unique<pve_world>(io, std::move(options))) {}

simulator::~simulator() = default;

void simulator::handle(const transport::http_request& request,
                       std::function<void(transport::http_response)> reply) {
  world_->handle(request, std::move(reply));
}

}  // namespace kp::sim::pve
