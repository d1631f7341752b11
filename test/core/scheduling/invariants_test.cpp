// Properties every plan must have, checked on seeded random workloads.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "core/scheduling/provision.hpp"
#include "test/core/scheduling/fixtures.hpp"

namespace {

using namespace kp::scheduling;
using namespace kp::scheduling::test;
namespace L = kp::model::labels;
using kp::model::label_selector;

snapshot random_snapshot(unsigned seed, int pods) {
  std::mt19937 rng(seed);
  auto s = base_snapshot();
  if (seed % 3 == 0) s.nodepools[0].limits.set("cpu", kp::model::quantity::from_units(40));
  if (seed % 4 == 1) {
    auto gpu = make_pool("tainted", 5);
    gpu.template_.taints = {{"dedicated", "x", "NoSchedule"}};
    s.nodepools.push_back(gpu);
  }
  for (int n = 0; n < static_cast<int>(seed % 3); ++n)
    s.nodes.push_back(kp::model::share(
        make_node("node-" + std::to_string(n), "z" + std::to_string(1 + n % 3), 4, 8)));
  for (int i = 0; i < pods; ++i) {
    auto p = make_pod("p" + std::to_string(i), 100 * (1 + rng() % 20), 128 * (1 + rng() % 30));
    std::string app = "app-" + std::to_string(rng() % 4);
    p.labels = {{"app", app}};
    switch (rng() % 7) {
      case 0:
        // Only spread pods carry a spread-* label, so the skew of their app is checkable.
        app = "spread-" + std::to_string(rng() % 2);
        p.labels = {{"app", app}};
        p.topology_spread = {app_spread(L::zone, app)};
        break;
      case 1:
        p.pod_anti_affinity.required = {
            {label_selector{{{"app", app}}, {}}, {}, std::nullopt, std::string(L::hostname), {}}};
        break;
      case 2:
        p.pod_affinity.required = {
            {label_selector{{{"app", app}}, {}}, {}, std::nullopt, std::string(L::zone), {}}};
        break;
      case 3:
        p.node_selector = {{std::string(L::zone), "z" + std::to_string(1 + rng() % 3)}};
        break;
      case 4:
        p.tolerations = {{"dedicated", "Exists", "", "", {}}};
        break;
      case 5:
        p.containers[0].host_ports = {{static_cast<std::int32_t>(8000 + rng() % 3), "TCP", ""}};
        break;
      default:
        break;
    }
    s.pods.push_back(p);
  }
  return s;
}

class PlanInvariants : public ::testing::TestWithParam<unsigned> {};

TEST_P(PlanInvariants, EveryPodIsPlacedOnceOrExplainedAndNodeClaimsFitTheirCheapestType) {
  auto s = random_snapshot(GetParam(), 300);
  auto p = provision(s);
  std::vector<int> seen(s.pods.size(), 0);
  for (const auto& nc : p.nodeclaims)
    for (auto i : nc.pods) ++seen[i];
  for (const auto& b : p.bindings) ++seen[b.pod];
  for (const auto& e : p.errors) {
    ++seen[e.pod];
    EXPECT_FALSE(e.reason.empty());
  }
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], 1) << "pod " << i;

  std::map<std::string, std::map<std::string, int>> per_zone;  // app -> zone -> pods
  std::set<std::string> spread_apps;
  for (const auto& nc : p.nodeclaims) {
    ASSERT_FALSE(nc.instance_types.empty());
    auto alloc = s.instance_types[nc.instance_types.front()].allocatable();
    EXPECT_TRUE(nc.requests.fits_in(alloc)) << nc.nodepool;
    std::map<std::int32_t, int> ports;
    for (auto i : nc.pods) {
      const auto& pod = s.pods[i];
      if (!pod.pod_anti_affinity.required.empty()) {
        // No other pod of the same app shares the node.
        for (auto j : nc.pods) {
          if (j != i) {
            EXPECT_NE(s.pods[j].labels.at("app"), pod.labels.at("app"));
          }
        }
      }
      for (const auto& c : pod.containers)
        for (const auto& hp : c.host_ports) EXPECT_EQ(++ports[hp.port], 1);
      // The spread selector counts every pod of the app, spread or not, once its zone is known.
      auto z = req_values(nc, L::zone);
      if (!pod.topology_spread.empty()) {
        ASSERT_EQ(z.size(), 1u);
      }
      if (z.size() == 1) ++per_zone[pod.labels.at("app")][z[0]];
      if (!pod.topology_spread.empty()) spread_apps.insert(pod.labels.at("app"));
    }
  }
  // With no existing nodes, an app with spread pods is spread within a skew of 1.
  for (const auto& [app, zones] : per_zone) {
    if (!spread_apps.count(app)) continue;
    int lo = 1 << 30, hi = 0;
    for (const auto& z : {"z1", "z2", "z3"}) {
      int c = zones.count(z) ? zones.at(z) : 0;
      lo = std::min(lo, c);
      hi = std::max(hi, c);
    }
    if (s.nodes.empty()) {
      EXPECT_LE(hi - lo, 1) << app;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, PlanInvariants, ::testing::Range(1u, 13u));

}  // namespace
