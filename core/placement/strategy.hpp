#pragma once
// Placement strategies: the order in which hosts (zones) are tried for a new VM. The Go
// provider's Balanced and AvailabilityFirst, kproximate's strategies under names that do not
// clash, and Pack, which fills the fewest hosts so idle ones can save power.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/placement/host.hpp"
#include "core/result.hpp"

namespace kp::placement {

enum class strategy {
  balanced,            // lowest committed CPU load first (kproximate's "balanced" maps here)
  availability_first,  // a seeded random permutation, as the Go provider's
  spread,              // hosts without a managed VM first (by name), then most free memory
  max_memory,          // most free memory first
  max_cpu,             // most free CPUs first
  round_robin,         // rotate through eligible hosts by name, one step per placement
  pack,                // highest committed load that still fits first: fewest hosts in use
};

// Accepts the CRD enum spelling ("Balanced", "AvailabilityFirst", "Spread", "MaxMemory",
// "MaxCPU", "RoundRobin", "Pack") and kproximate's ("spread", "max-memory", "max-cpu",
// "balanced", "round-robin").
result<strategy> parse_strategy(std::string_view text);
std::string_view to_string(strategy s);

// Hosts a node class allows: excludedZones, and the room that must stay free after placing.
struct host_filter {
  std::vector<std::string> excluded_hosts;
  std::vector<std::string> allowed_hosts;  // empty = any (e.g. from a zone requirement)
  int min_free_cpu = 0;
  std::int64_t min_free_memory = 0;
};

struct vm_request {
  int vcpus = 1;
  std::int64_t memory_bytes = 0;
  pci_counts pci;  // mapped PCI devices it needs free on its host
};

// State a caller keeps between placements (the region actor owns it).
struct placement_cursor {
  std::uint64_t round_robin = 0;
  std::uint64_t random_state = 0x9e3779b97f4a7c15ull;
};

// Why a host was not eligible, for the reason a person reads when nothing fits.
std::string ineligibility(const host_state& host, const vm_request& vm, const host_filter& filter);

// Indices of the eligible hosts (online, allowed, not excluded, room for the VM and the minimum
// free after it), best first under `s`. Ties break by host name.
std::vector<std::size_t> rank_hosts(const std::vector<host_state>& hosts, const vm_request& vm,
                                    const host_filter& filter, strategy s,
                                    placement_cursor& cursor);

}  // namespace kp::placement
