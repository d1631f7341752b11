#pragma once
// The topology the Go provider's host daemon (proxmox-scheduler) publishes in a VM named
// `node-capacity`, tagged `karpenter`, that is never started (kpp.md section 7):
//   cores: <all host CPUs>   sockets: 1   numa: 1   memory: <sum of numaN memory>
//   affinity: 0-7,16-23,8-15,24-31          guest vCPU i runs on the i-th CPU listed
//   numa0: cpus=0-15,hostnodes=0,memory=64512   guest vCPUs 0-15 = host NUMA node 0, MiB
// Reading it back gives the host's NUMA nodes with their host CPU lists and usable memory.
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/placement/host.hpp"
#include "core/result.hpp"

namespace kp::topology {

// The name and tag the Go provider looks for (both must match).
inline constexpr std::string_view topology_vm_name = "node-capacity";
inline constexpr std::string_view topology_vm_tag = "karpenter";

// What /nodes/{node}/status cpuinfo says, to split CPUs into sockets, cores and threads (the
// VM itself only lists CPUs). Zero fields: one socket, no SMT.
struct cpu_info {
  int sockets = 0;
  int cores_per_socket = 0;
  int cpus = 0;
};

// True for the VM the Go provider reads: name `node-capacity` and `karpenter` among its tags
// (";"- or ","-separated, as Proxmox writes them).
bool is_topology_vm(std::string_view name, std::string_view tags);

// `config` is the VM's config as Proxmox returns it (key -> raw value). Without numaN entries
// the whole affinity is one NUMA node 0 holding the VM's memory (as the Go provider does).
// Reserved memory is 0: the daemon already left 1 GiB per node out of numaN's memory.
// Errors: "invalid_topology_vm" naming the VM id, the key and the value.
result<placement::host_topology> topology_from_vm_config(
    int vmid, const std::map<std::string, std::string>& config, const cpu_info& info);

}  // namespace kp::topology
