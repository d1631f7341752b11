#pragma once
// Internal to sim/pve: the test controls under /sim/v1/ (plain JSON, no Proxmox envelope, no
// authentication: loopback only): faults, request counters, host accounting and guest progress.
#include <functional>

#include "protocol/transport/http_message.hpp"

namespace kp::sim::pve {

class world_model;
class request_stats;
class pci_mapping_api;

class sim_control {
 public:
  sim_control(world_model& world, request_stats& stats, const pci_mapping_api& pci)
      : world_(world), stats_(stats), pci_(pci) {}

  void handle(const transport::http_request& request,
              std::function<void(transport::http_response)> reply);

 private:
  world_model& world_;
  request_stats& stats_;
  const pci_mapping_api& pci_;
};

}  // namespace kp::sim::pve
