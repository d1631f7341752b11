#pragma once
// pve-sim's public face: a simulated Proxmox VE cluster answering HTTP requests. It runs on one
// io_context that must be driven by exactly one thread (the state has no locks).
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "protocol/transport/http_message.hpp"
#include "sim/pve/faults.hpp"
#include "sim/pve/topology.hpp"

namespace boost::asio {
class io_context;
}

namespace kp::sim::pve {

struct simulator_options {
  topology topo;
  std::filesystem::path data_dir;  // ISO and import files live in data_dir/<node>/<storage>/
  double time_scale = 1.0;         // multiplies every duration
  std::optional<fault_plan> faults;
};

class simulator {
 public:
  simulator(boost::asio::io_context& io, simulator_options options);
  ~simulator();
  simulator(const simulator&) = delete;
  simulator& operator=(const simulator&) = delete;

  // Call on the io thread. `reply` is called once, possibly later (tasks, latency faults).
  void handle(const transport::http_request& request,
              std::function<void(transport::http_response)> reply);

 private:
  struct parts;
  std::unique_ptr<parts> parts_;
};

}  // namespace kp::sim::pve
