// bench-disruption: one disruption pass (kp::disruption::plan_disruption) over large clusters,
// and the churn check. One `key=value` line per case.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

#include "core/disruption/planner.hpp"
#include "core/parse_number.hpp"
#include "test/core/disruption/fixture.hpp"

namespace {

using kp::disruption::plan;
using kp::disruption::fixture::builder;

struct timing {
  double wall_ms = 0;
  double cpu_ms = 0;
};

template <class F>
timing timed(F&& f) {
  auto w0 = std::chrono::steady_clock::now();
  auto c0 = std::clock();
  f();
  auto c1 = std::clock();
  auto w1 = std::chrono::steady_clock::now();
  return {std::chrono::duration<double, std::milli>(w1 - w0).count(),
          1000.0 * static_cast<double>(c1 - c0) / CLOCKS_PER_SEC};
}

const std::string big = kp::instance_types::generic_name(16, 2);  // 16 vCPU, 32 GB

// `nodes` nodes of 16 vCPU with 20 pods of 700m / 1Gi each on average: nine in ten hold 21 pods
// (14.7 vCPU), the last tenth are half-empty with 11 (7.7 vCPU) and consolidation should merge
// them. 1,000 nodes hold 20,000 pods; 5,000 hold 100,000.
builder consolidation_cluster(int nodes) {
  builder b;
  b.c.state.nodes.reserve(static_cast<std::size_t>(nodes));
  b.c.state.nodeclaims.reserve(static_cast<std::size_t>(nodes));
  b.c.state.bound_pods.reserve(static_cast<std::size_t>(nodes) * 20);
  int pod = 0;
  for (int n = 0; n < nodes; ++n) {
    auto name = "node-" + std::to_string(n);
    b.add_node(name, big);
    int pods = n < nodes / 10 * 9 ? 21 : 11;
    for (int i = 0; i < pods; ++i) b.add_pod(name, "pod-" + std::to_string(pod++), 700, 1024);
  }
  return b;
}

// 1,000 nodes of 16 vCPU each holding 20 pods of 790m / 1Gi (15.8 of 15.9 vCPU requested).
builder stable_cluster() {
  builder b;
  int pod = 0;
  for (int n = 0; n < 1000; ++n) {
    auto name = "node-" + std::to_string(n);
    b.add_node(name, big);
    for (int i = 0; i < 20; ++i) b.add_pod(name, "pod-" + std::to_string(pod++), 790, 1024);
  }
  return b;
}

int run_consolidation(int cluster_nodes) {
  auto b = consolidation_cluster(cluster_nodes);
  plan p;
  auto t = timed([&] { p = kp::disruption::plan_disruption(b.c); });
  std::size_t nodes = 0, replacements = 0;
  double savings = 0;
  for (const auto& c : p.commands) {
    nodes += c.nodes.size();
    replacements += c.replacements.size();
    savings += c.savings;
  }
  timing v{};
  bool valid = false;
  if (!p.commands.empty())
    v = timed([&] { valid = kp::disruption::validate(p.commands[0], b.c).ok(); });
  std::printf(
      "case=consolidation nodes=%zu pods=%zu ms=%.1f cpu_ms=%.1f method=%s commands=%zu "
      "disrupted_nodes=%zu replacements=%zu simulations=%zu savings_per_h=%.4f validate_ms=%.1f "
      "validated=%d\n",
      b.c.state.nodes.size(), b.c.state.bound_pods.size(), t.wall_ms, t.cpu_ms,
      p.method.empty() ? "none" : p.method.c_str(), p.commands.size(), nodes, replacements,
      p.simulations, savings, v.wall_ms, valid ? 1 : 0);
  return 0;
}

int run_churn(int passes) {
  auto b = stable_cluster();
  std::size_t moves = 0;
  auto t = timed([&] {
    for (int i = 0; i < passes; ++i) {
      b.c.now += std::chrono::seconds(10);  // Karpenter's polling period
      auto p = kp::disruption::plan_disruption(b.c);
      moves += p.commands.size() + p.expirations.size();
    }
  });
  std::printf(
      "case=churn nodes=%zu pods=%zu passes=%d moves=%zu ms=%.1f cpu_ms=%.1f ms_per_pass=%.2f\n",
      b.c.state.nodes.size(), b.c.state.bound_pods.size(), passes, moves, t.wall_ms, t.cpu_ms,
      t.wall_ms / passes);
  return moves == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string which = argc > 1 ? argv[1] : "all";
  auto arg = [&](const char* name, int fallback, int max) {
    return argc > 2 ? kp::parse_integer_field<int>(name, argv[2], 1, max)
                    : kp::result<int>(fallback);
  };
  int rc = 0;
  if (which == "all" || which == "consolidation") {
    // Every node has a NodeClaim and room on the one host of 100,000 vCPUs (16 per node).
    auto nodes = arg("nodes", 1000, 6000);
    if (!nodes) {
      std::fprintf(stderr, "bench-disruption: %s\n", nodes.error().message.c_str());
      return 2;
    }
    rc |= run_consolidation(*nodes);
    if (which == "all") rc |= run_consolidation(5000);
  }
  if (which == "all" || which == "churn") {
    auto passes = arg("passes", 100, 1'000'000);
    if (!passes) {
      std::fprintf(stderr, "bench-disruption: %s\n", passes.error().message.c_str());
      return 2;
    }
    rc |= run_churn(*passes);
  }
  return rc;
}
