#include "core/topology/resolve_topology.hpp"

#include <algorithm>

namespace kp::topology {

result<resolved_topology> resolve_host_topology(const host_observation& host,
                                                const node_settings_file* file) {
  resolved_topology out;
  int cpus = host.cpu.cpus > 0 ? host.cpu.cpus : 1;
  int sockets = std::max(host.cpu.sockets, 1);
  int cores = host.cpu.cores_per_socket > 0 ? host.cpu.cores_per_socket : cpus / sockets;
  out.topology = placement::predict_topology(sockets, cpus, std::max(cores, 1), host.memory_bytes);
  if (host.topology_vm) {
    auto from_vm =
        topology_from_vm_config(host.topology_vm->vmid, host.topology_vm->config, host.cpu);
    if (from_vm) {
      out.topology = std::move(*from_vm);
      out.source = topology_source::topology_vm;
    } else {
      out.warning = from_vm.error().message + "; using the topology predicted from the node status";
    }
  }
  if (file != nullptr) {
    if (const host_settings* entry = find_host_settings(*file, host.region, host.host)) {
      auto applied = apply_host_settings(out.topology, *entry, file->origin);
      if (!applied) return applied.error();
      out.topology = std::move(*applied);
      out.from_file = true;
    }
  }
  return out;
}

}  // namespace kp::topology
