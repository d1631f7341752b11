#pragma once
// One host's topology from every source, in the Go provider's order of priority: the
// prediction from /nodes/{node}/status, replaced by the `node-capacity` topology VM when the
// host has one, then NODE_SETTING_FILE's entry for the host (or its region's "*") on top.
// This is the one call the region actor needs per host and inventory refresh.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/placement/host.hpp"
#include "core/result.hpp"
#include "core/topology/node_settings.hpp"
#include "core/topology/topology_vm.hpp"

namespace kp::topology {

struct host_observation {
  std::string region;
  std::string host;
  cpu_info cpu;                   // /nodes/{node}/status cpuinfo: sockets, cores, cpus
  std::int64_t memory_bytes = 0;  // /nodes/{node}/status memory.total
  struct vm {
    int vmid = 0;
    std::map<std::string, std::string> config;  // GET .../qemu/{vmid}/config, raw values
  };
  std::optional<vm> topology_vm;  // the host's `node-capacity` VM (is_topology_vm), if any
};

enum class topology_source { predicted, topology_vm };

struct resolved_topology {
  placement::host_topology topology;
  topology_source source = topology_source::predicted;
  bool from_file = false;  // NODE_SETTING_FILE had an entry for the host (or "*")
  // A topology VM that could not be read: the prediction is used and this says why (the VM is
  // the host daemon's, not the user's configuration, so it does not stop placement).
  std::optional<std::string> warning;
};

// Errors only from the file's entry (apply_host_settings), which the user must fix.
result<resolved_topology> resolve_host_topology(const host_observation& host,
                                                const node_settings_file* file);

}  // namespace kp::topology
