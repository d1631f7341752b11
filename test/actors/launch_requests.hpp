#pragma once
// The launch request the region and termination tests send: instance type c2-m4 (2 vCPUs) from
// the template `k8s-template`, for NodePool "default", and the NoCloud join they attach to it.
// Header-only.
#include <cstdint>
#include <string>

#include "core/cloudinit/vm_render.hpp"
#include "protocol/region_messages.hpp"

namespace kp::test {

// `memory_mib` is the VM's memory: the pve-sim hosts are smaller than the in-memory Proxmox's.
inline protocol::launch_request c2_m4_launch(const std::string& nodeclaim,
                                             std::uint64_t memory_mib) {
  protocol::launch_request r;
  r.nodeclaim = nodeclaim;
  r.nodepool = "default";
  r.instance_type = "c2-m4";
  r.vcpus = 2;
  r.memory_mib = memory_mib;
  r.template_name = "k8s-template";
  return r;
}

// A NoCloud join of `hostname` to the API server at `endpoint`, with a fixed bootstrap token.
inline cloudinit::nocloud_plan nocloud_join(const std::string& hostname,
                                            const std::string& endpoint) {
  cloudinit::nocloud_plan plan;
  plan.inputs.hostname = hostname;
  plan.inputs.endpoint = endpoint;
  plan.inputs.bootstrap_token = "abcdef.0123456789abcdef";
  return plan;
}

}  // namespace kp::test
