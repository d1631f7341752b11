#include "bench/scheduling/packing_bound.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "core/instance_types/right_sized.hpp"

namespace kp::bench {
namespace {

double det3(const std::array<double, 3>& a, const std::array<double, 3>& b,
            const std::array<double, 3>& c) {
  return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
         a[2] * (b[0] * c[1] - b[1] * c[0]);
}

}  // namespace

lp_dual lp_dual_max(const std::vector<lp_type>& types, const std::array<double, 3>& need) {
  std::vector<lp_type> rows = types;
  for (std::size_t r = 0; r < 3; ++r) {
    lp_type nonneg;
    nonneg.alloc[r] = -1;
    rows.push_back(nonneg);
  }
  lp_dual best;
  std::size_t n = rows.size();
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j)
      for (std::size_t k = j + 1; k < n; ++k) {
        const auto &A = rows[i].alloc, &B = rows[j].alloc, &C = rows[k].alloc;
        double det = det3(A, B, C);
        if (std::fabs(det) < 1e-12) continue;
        std::array<double, 3> y{};
        for (std::size_t c = 0; c < 3; ++c) {
          auto a2 = A, b2 = B, c2 = C;
          a2[c] = rows[i].price;
          b2[c] = rows[j].price;
          c2[c] = rows[k].price;
          y[c] = det3(a2, b2, c2) / det;
        }
        bool feasible = true;
        for (const auto& r : rows)
          if (r.alloc[0] * y[0] + r.alloc[1] * y[1] + r.alloc[2] * y[2] > r.price + 1e-9) {
            feasible = false;
            break;
          }
        double value = y[0] * need[0] + y[1] * need[1] + y[2] * need[2];
        if (feasible && value > best.value) best = {value, y};
      }
  return best;
}

double right_sized_lower_bound(const std::array<double, 3>& need, std::int64_t max_vcpus,
                               std::int64_t max_memory_mib, double memory_overhead_percent) {
  namespace it = kp::instance_types;
  constexpr std::int64_t step = it::right_sized_memory_step_mib;
  constexpr double gib = 1024.0 * 1024 * 1024;
  const std::int64_t steps = max_memory_mib / step;
  // The vCPU part and the memory part of every size's allocatable and price.
  std::vector<double> cpu(static_cast<std::size_t>(max_vcpus) + 1), cpu_price(cpu.size()),
      mem(static_cast<std::size_t>(steps) + 1), pods(mem.size()), mem_price(mem.size());
  for (std::int64_t v = 1; v <= max_vcpus; ++v) {
    cpu[static_cast<std::size_t>(v)] = it::right_sized_allocatable_cpu_milli(v) / 1000.0;
    cpu_price[static_cast<std::size_t>(v)] = it::right_sized_price({v, 0});
  }
  for (std::int64_t s = 1; s <= steps; ++s) {
    auto i = static_cast<std::size_t>(s);
    mem[i] = static_cast<double>(
                 it::right_sized_allocatable_memory_bytes(s * step, memory_overhead_percent)) /
             gib;
    pods[i] = static_cast<double>(it::right_sized_pods(s * step));
    mem_price[i] = it::right_sized_price({0, s * step});
  }
  auto row = [&](std::int64_t v, std::int64_t s) {
    auto a = static_cast<std::size_t>(v), b = static_cast<std::size_t>(s);
    return lp_type{{cpu[a], mem[b], pods[b]}, cpu_price[a] + mem_price[b]};
  };
  std::set<std::pair<std::int64_t, std::int64_t>> cuts;
  for (std::int64_t v : {std::int64_t{1}, max_vcpus})
    for (std::int64_t s : {std::int64_t{1}, std::min<std::int64_t>(9, steps), steps})
      cuts.emplace(v, s);
  lp_dual dual;
  for (int round = 0; round < 400; ++round) {
    std::vector<lp_type> rows;
    for (const auto& [v, s] : cuts) rows.push_back(row(v, s));
    dual = lp_dual_max(rows, need);
    const auto& y = dual.y;
    std::int64_t worst_v = 1, worst_s = 1;
    double cpu_gap = -1e300, mem_gap = -1e300;
    for (std::int64_t v = 1; v <= max_vcpus; ++v) {
      auto i = static_cast<std::size_t>(v);
      double gap = y[0] * cpu[i] - cpu_price[i];
      if (gap > cpu_gap) cpu_gap = gap, worst_v = v;
    }
    for (std::int64_t s = 1; s <= steps; ++s) {
      auto i = static_cast<std::size_t>(s);
      double gap = y[1] * mem[i] + y[2] * pods[i] - mem_price[i];
      if (gap > mem_gap) mem_gap = gap, worst_s = s;
    }
    if (cpu_gap + mem_gap <= 1e-9 || !cuts.emplace(worst_v, worst_s).second) break;
  }
  return dual.value;
}

}  // namespace kp::bench
