#include <gtest/gtest.h>

#include <map>

#include "core/scheduling/provision.hpp"
#include "test/core/scheduling/fixtures.hpp"

namespace {

using namespace kp::scheduling;
using namespace kp::scheduling::test;
namespace L = kp::model::labels;
using kp::model::label_selector;

kp::model::pod labelled(const std::string& name, const std::string& app, std::int64_t cpu = 100) {
  auto p = make_pod(name, cpu, 100);
  p.labels = {{"app", app}};
  return p;
}

label_selector app(const std::string& a) {
  return label_selector{{{"app", a}}, {}};
}

std::map<std::string, int> pods_per_zone(const plan& p) {
  std::map<std::string, int> out;
  for (const auto& nc : p.nodeclaims) {
    auto z = req_values(nc, L::zone);
    EXPECT_EQ(z.size(), 1u);
    if (z.size() == 1) out[z[0]] += static_cast<int>(nc.pods.size());
  }
  return out;
}

TEST(TopologySpread, ZonalSpreadBalancesAcrossZones) {
  auto s = base_snapshot();
  for (int i = 0; i < 6; ++i) {
    auto p = labelled("w" + std::to_string(i), "web");
    p.topology_spread = {app_spread(L::zone, "web")};
    s.pods.push_back(p);
  }
  auto p = provision(s);
  EXPECT_TRUE(p.errors.empty());
  auto zones = pods_per_zone(p);
  EXPECT_EQ(zones, (std::map<std::string, int>{{"z1", 2}, {"z2", 2}, {"z3", 2}}));
}

TEST(TopologySpread, HostnameSpreadPutsOnePodPerNode) {
  auto s = base_snapshot();
  for (int i = 0; i < 4; ++i) {
    auto p = labelled("w" + std::to_string(i), "web");
    p.topology_spread = {app_spread(L::hostname, "web")};
    s.pods.push_back(p);
  }
  auto p = provision(s);
  EXPECT_EQ(p.nodeclaims.size(), 4u);
}

TEST(TopologySpread, MinDomainsAboveTheDomainCountCapsEachZone) {
  auto s = base_snapshot();
  for (int i = 0; i < 5; ++i) {
    auto p = labelled("w" + std::to_string(i), "web");
    auto spread = app_spread(L::zone, "web");
    spread.min_domains = 5;
    p.topology_spread = {spread};
    s.pods.push_back(p);
  }
  auto p = provision(s);
  // Three zones < minDomains 5: the global minimum counts as 0, so one pod per zone.
  EXPECT_EQ(pods_per_zone(p), (std::map<std::string, int>{{"z1", 1}, {"z2", 1}, {"z3", 1}}));
  ASSERT_EQ(p.errors.size(), 2u);
  EXPECT_NE(p.errors[0].reason.find("maxSkew"), std::string::npos) << p.errors[0].reason;
}

TEST(TopologySpread, NodeAffinityPolicyHonorLimitsDomainsToThePodsOwnSelection) {
  auto make = [](kp::model::inclusion_policy policy) {
    auto s = base_snapshot();
    for (int i = 0; i < 4; ++i) {
      auto p = labelled("w" + std::to_string(i), "web");
      p.affinity.required = {{{{std::string(L::zone), op::in, {"z1", "z2"}, std::nullopt}}, {}}};
      auto spread = app_spread(L::zone, "web");
      spread.node_affinity_policy = policy;
      p.topology_spread = {spread};
      s.pods.push_back(p);
    }
    return provision(s);
  };
  auto honor = make(kp::model::inclusion_policy::honor);
  EXPECT_TRUE(honor.errors.empty());
  EXPECT_EQ(pods_per_zone(honor), (std::map<std::string, int>{{"z1", 2}, {"z2", 2}}));
  // Ignore: z3 counts (empty) toward the minimum, so each usable zone takes only one.
  auto ignore = make(kp::model::inclusion_policy::ignore);
  EXPECT_EQ(ignore.errors.size(), 2u);
}

TEST(TopologySpread, NodeTaintsPolicyHonorSkipsDomainsOfTaintedPools) {
  auto s = base_snapshot();
  s.nodepools[0].template_.requirements = {
      {std::string(L::zone), op::in, {"z1", "z2"}, std::nullopt}};
  auto tainted = make_pool("tainted");
  tainted.template_.requirements = {{std::string(L::zone), op::in, {"z3"}, std::nullopt}};
  tainted.template_.taints = {{"dedicated", "x", "NoSchedule"}};
  s.nodepools.push_back(tainted);
  for (int i = 0; i < 4; ++i) {
    auto p = labelled("w" + std::to_string(i), "web");
    auto spread = app_spread(L::zone, "web");
    spread.node_taints_policy = kp::model::inclusion_policy::honor;
    p.topology_spread = {spread};
    s.pods.push_back(p);
  }
  auto p = provision(s);
  EXPECT_TRUE(p.errors.empty());
  EXPECT_EQ(pods_per_zone(p), (std::map<std::string, int>{{"z1", 2}, {"z2", 2}}));
}

TEST(TopologySpread, ScheduleAnywayIsRelaxedWhenItCannotBeMet) {
  auto s = base_snapshot();
  for (int i = 0; i < 4; ++i) {
    auto p = labelled("w" + std::to_string(i), "web");
    p.node_selector = {{std::string(L::zone), "z1"}};
    auto spread = app_spread(L::zone, "web");
    spread.when = kp::model::when_unsatisfiable::schedule_anyway;
    spread.node_affinity_policy = kp::model::inclusion_policy::ignore;
    p.topology_spread = {spread};
    s.pods.push_back(p);
  }
  auto p = provision(s);
  EXPECT_TRUE(p.errors.empty());
}

TEST(PodAntiAffinity, HostnameAntiAffinityPutsEachPodOnItsOwnNode) {
  auto s = base_snapshot();
  for (int i = 0; i < 3; ++i) {
    auto p = labelled("w" + std::to_string(i), "web");
    p.pod_anti_affinity.required = {{app("web"), {}, std::nullopt, std::string(L::hostname), {}}};
    s.pods.push_back(p);
  }
  auto p = provision(s);
  EXPECT_EQ(p.nodeclaims.size(), 3u);
}

TEST(PodAntiAffinity, ZonalAntiAffinityAllowsOnePodPerZone) {
  auto s = base_snapshot();
  for (int i = 0; i < 4; ++i) {
    auto p = labelled("w" + std::to_string(i), "web");
    p.pod_anti_affinity.required = {{app("web"), {}, std::nullopt, std::string(L::zone), {}}};
    s.pods.push_back(p);
  }
  auto p = provision(s);
  EXPECT_EQ(p.nodeclaims.size(), 3u);
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].reason.find("anti-affinity"), std::string::npos);
}

TEST(PodAntiAffinity, PodsSelectedByAnExistingPodsAntiAffinityStayAway) {
  auto s = base_snapshot();
  s.nodes.push_back(kp::model::share(make_node("node-1", "z1", 8, 16)));
  auto guard = labelled("guard", "guard");
  guard.node_name = "node-1";
  guard.pod_anti_affinity.required = {{app("web"), {}, std::nullopt, std::string(L::hostname), {}}};
  s.bound_pods.push_back(kp::model::share(guard));
  s.pods.push_back(labelled("w", "web"));
  auto p = provision(s);
  EXPECT_TRUE(p.bindings.empty());
  EXPECT_EQ(p.nodeclaims.size(), 1u);
}

TEST(PodAffinity, SelfAffinePodsShareOneZone) {
  auto s = base_snapshot();
  for (int i = 0; i < 30; ++i) {
    auto p = labelled("w" + std::to_string(i), "web", 1000);
    p.pod_affinity.required = {{app("web"), {}, std::nullopt, std::string(L::zone), {}}};
    s.pods.push_back(p);
  }
  auto p = provision(s);
  EXPECT_TRUE(p.errors.empty());
  EXPECT_EQ(pods_per_zone(p).size(), 1u);
}

TEST(PodAffinity, AffinityFollowsAnExistingPodsZone) {
  auto s = base_snapshot();
  s.nodes.push_back(kp::model::share(make_node("node-1", "z2", 1, 1)));
  auto db = labelled("db", "db");
  db.node_name = "node-1";
  s.bound_pods.push_back(kp::model::share(db));
  auto p = labelled("w", "web", 2000);
  p.pod_affinity.required = {{app("db"), {}, std::nullopt, std::string(L::zone), {}}};
  s.pods.push_back(p);
  auto plan = provision(s);
  ASSERT_EQ(plan.nodeclaims.size(), 1u);
  EXPECT_EQ(req_values(plan.nodeclaims[0], L::zone), std::vector<std::string>{"z2"});
}

TEST(PodAffinity, AffinityToPodsThatDoNotExistIsExplained) {
  auto s = base_snapshot();
  auto p = labelled("w", "web");
  p.pod_affinity.required = {{app("db"), {}, std::nullopt, std::string(L::zone), {}}};
  s.pods.push_back(p);
  auto plan = provision(s);
  ASSERT_EQ(plan.errors.size(), 1u);
  EXPECT_NE(plan.errors[0].reason.find("pod affinity"), std::string::npos);
}

TEST(PodAffinity, AffinityWithinOneBatchIsSolvedByRetrying) {
  auto s = base_snapshot();
  auto web = labelled("web", "web", 2000);  // bigger: tried first, before its db exists
  web.pod_affinity.required = {{app("db"), {}, std::nullopt, std::string(L::zone), {}}};
  s.pods.push_back(web);
  auto db = labelled("db", "db", 100);
  db.node_selector = {{std::string(L::zone), "z3"}};
  s.pods.push_back(db);
  auto plan = provision(s);
  EXPECT_TRUE(plan.errors.empty());
  for (const auto& nc : plan.nodeclaims)
    EXPECT_EQ(req_values(nc, L::zone), std::vector<std::string>{"z3"});
}

TEST(PodAffinity, PreferredAntiAffinityIsRelaxedRatherThanFailing) {
  auto s = base_snapshot();
  s.nodepools[0].template_.requirements = {{std::string(L::zone), op::in, {"z1"}, std::nullopt}};
  for (int i = 0; i < 3; ++i) {
    auto p = labelled("w" + std::to_string(i), "web");
    p.pod_anti_affinity.preferred = {
        {10, {app("web"), {}, std::nullopt, std::string(L::zone), {}}}};
    s.pods.push_back(p);
  }
  auto plan = provision(s);
  EXPECT_TRUE(plan.errors.empty());
}

}  // namespace

namespace {

using namespace kp::scheduling;
using namespace kp::scheduling::test;
namespace L = kp::model::labels;

TEST(TopologySpread, PodsAlreadyRunningCountTowardTheirZone) {
  auto s = base_snapshot();
  auto n = make_node("node-1", "z1", 1, 1);  // full: new pods cannot land on it
  s.nodes.push_back(kp::model::share(n));
  for (int i = 0; i < 2; ++i) {
    auto running = make_pod("running" + std::to_string(i), 10, 10);
    running.labels = {{"app", "web"}};
    running.node_name = "node-1";
    s.bound_pods.push_back(kp::model::share(running));
  }
  for (int i = 0; i < 4; ++i) {
    auto p = make_pod("w" + std::to_string(i), 100, 100);
    p.labels = {{"app", "web"}};
    p.topology_spread = {app_spread(L::zone, "web")};
    s.pods.push_back(p);
  }
  auto p = provision(s);
  EXPECT_TRUE(p.errors.empty());
  std::map<std::string, int> zones;
  for (const auto& nc : p.nodeclaims) zones[req_values(nc, L::zone)[0]] += nc.pods.size();
  EXPECT_EQ(zones, (std::map<std::string, int>{{"z2", 2}, {"z3", 2}}));
}

}  // namespace

namespace {

using namespace kp::scheduling;
using namespace kp::scheduling::test;
namespace L = kp::model::labels;

TEST(PodAntiAffinity, ARunningPodsAntiAffinityOnlyRepelsThePodsItSelects) {
  auto s = base_snapshot();
  s.nodes.push_back(kp::model::share(make_node("node-1", "z1", 8, 16)));
  auto guard = make_pod("guard", 100, 100);
  guard.labels = {{"app", "guard"}};
  guard.node_name = "node-1";
  guard.pod_anti_affinity.required = {{kp::model::label_selector{{{"app", "web"}}, {}},
                                       {},
                                       std::nullopt,
                                       std::string(L::hostname),
                                       {}}};
  s.bound_pods.push_back(kp::model::share(guard));
  auto cache = make_pod("cache", 100, 100);
  cache.labels = {{"app", "cache"}};
  cache.pod_anti_affinity.required = {{kp::model::label_selector{{{"app", "cache"}}, {}},
                                       {},
                                       std::nullopt,
                                       std::string(L::hostname),
                                       {}}};
  s.pods.push_back(cache);
  auto p = provision(s);
  ASSERT_EQ(p.bindings.size(), 1u);
  EXPECT_EQ(p.bindings[0].node, "node-1");
}

}  // namespace
