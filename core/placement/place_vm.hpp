#pragma once
// Placing one VM: rank the hosts, take the first that fits (with pinning under the static
// policy), and account it on that host so the next placement sees it.
#include <optional>
#include <string>

#include "core/placement/cpu_pinning.hpp"
#include "core/placement/strategy.hpp"

namespace kp::placement {

// NODE_POLICY: simple counts CPUs only; static pins CPUs and binds NUMA nodes.
enum class cpu_policy { simple, static_pinning };

struct placement_decision {
  std::size_t host = 0;           // index into the hosts given
  std::optional<pinning> pinned;  // set under cpu_policy::static_pinning
};

// Places `vm` (id `vmid`) on the best host and records it there. When nothing fits, the error
// names every host and why it was passed over ("pve1: offline; pve2: 2 free CPUs").
result<placement_decision> place_vm(std::vector<host_state>& hosts, int vmid, const vm_request& vm,
                                    const host_filter& filter, strategy s, cpu_policy policy,
                                    placement_cursor& cursor);

}  // namespace kp::placement
