#pragma once
// Lower bounds for the packing cases: the LP relaxation of a packing (min sum(x_t * price_t)
// with sum(x_t * allocatable_t) >= the total requests in cpu, memory in GiB and pods, x >= 0
// fractional), solved exactly through its dual. No real plan can cost less.
#include <array>
#include <cstdint>
#include <vector>

namespace kp::bench {

// One instance type as the LP sees it: allocatable (cpu, GiB, pods) and price.
struct lp_type {
  std::array<double, 3> alloc{};
  double price = 0;
};

struct lp_dual {
  double value = 0;
  std::array<double, 3> y{};  // the dual prices of cpu, GiB and pods
};

// max y.need s.t. y.alloc_t <= price_t for every type, y >= 0, by enumerating the vertices of
// the dual polytope (three variables).
lp_dual lp_dual_max(const std::vector<lp_type>& types, const std::array<double, 3>& need);

// The same bound over every right-sized (f1) size with 1..max_vcpus vCPUs and memory in 256 MiB
// steps up to max_memory_mib, too many to list. The f1 allocatable and price split into a vCPU
// part and a memory part, so the most violated dual constraint is the worst vCPU count plus the
// worst memory size, found by two scans; cutting planes add it until none is violated.
double right_sized_lower_bound(const std::array<double, 3>& need, std::int64_t max_vcpus,
                               std::int64_t max_memory_mib, double memory_overhead_percent);

}  // namespace kp::bench
