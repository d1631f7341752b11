#include "core/placement/place_vm.hpp"

#include <algorithm>

namespace kp::placement {

result<placement_decision> place_vm(std::vector<host_state>& hosts, int vmid, const vm_request& vm,
                                    const host_filter& filter, strategy s, cpu_policy policy,
                                    placement_cursor& cursor) {
  auto ranked = rank_hosts(hosts, vm, filter, s, cursor);
  for (std::size_t index : ranked) {
    placement_decision decision{index, std::nullopt};
    vm_allocation allocation{vmid, vm.vcpus, vm.memory_bytes, {}, {}, true, vm.pci};
    if (policy == cpu_policy::static_pinning) {
      decision.pinned = choose_pinning(hosts[index], vm.vcpus, vm.memory_bytes);
      if (!decision.pinned) continue;  // CPUs are there, but not in a shape that pins
      allocation.pinned = decision.pinned->cpus;
      allocation.numa = decision.pinned->numa;
    }
    hosts[index].add(allocation);
    if (s == strategy::round_robin) ++cursor.round_robin;
    return decision;
  }

  std::vector<std::size_t> order(hosts.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](auto a, auto b) { return hosts[a].name() < hosts[b].name(); });
  std::string reasons;
  for (std::size_t i : order) {
    std::string why = ineligibility(hosts[i], vm, filter);
    if (why.empty()) why = "no pinnable CPU set";
    if (!reasons.empty()) reasons += "; ";
    reasons += hosts[i].name() + ": " + why;
  }
  if (hosts.empty()) reasons = "no hosts known";
  return make_error("no_host_fits", "no host fits " + std::to_string(vm.vcpus) + " vCPU / " +
                                        std::to_string(vm.memory_bytes >> 20) + "MiB (" + reasons +
                                        ")");
}

}  // namespace kp::placement
