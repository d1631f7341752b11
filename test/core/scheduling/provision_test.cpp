#include "core/scheduling/provision.hpp"

#include <gtest/gtest.h>

#include "test/core/scheduling/fixtures.hpp"

namespace {

using namespace kp::scheduling;
using namespace kp::scheduling::test;
namespace L = kp::model::labels;
namespace instance_types = kp::instance_types;

TEST(Provision, OnePodGetsOneNodeClaimWithTypesCheapestFirst) {
  auto s = base_snapshot();
  s.pods.push_back(make_pod("a", 500, 512));
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_TRUE(p.errors.empty());
  const auto& nc = p.nodeclaims[0];
  EXPECT_EQ(nc.nodepool, "default");
  ASSERT_FALSE(nc.instance_types.empty());
  auto names = instance_type_names(nc, s);
  EXPECT_EQ(names.front(), "c1.1VCPU-2GB");
  for (std::size_t i = 1; i < names.size(); ++i)
    EXPECT_LE(s.instance_types[nc.instance_types[i - 1]].offerings[0].price,
              s.instance_types[nc.instance_types[i]].offerings[0].price);
  auto full = nodeclaim_requirements(nc, s);
  bool found = false;
  for (const auto& r : full)
    if (r.key == L::instance_type) found = r.values == names;
  EXPECT_TRUE(found);
  EXPECT_EQ(nc.labels.at(std::string(L::nodepool)), "default");
  EXPECT_EQ(nc.pods, std::vector<std::size_t>{0});
  EXPECT_EQ(nc.requests.milli("cpu"), 500);
  EXPECT_EQ(nc.requests.milli("pods"), 1000);
}

TEST(Provision, PodsThatFitTogetherShareANodeClaim) {
  auto s = base_snapshot();
  for (int i = 0; i < 4; ++i) s.pods.push_back(make_pod("p" + std::to_string(i), 900, 1024));
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(p.nodeclaims[0].pods.size(), 4u);
  EXPECT_EQ(instance_type_names(p.nodeclaims[0], s).front(), "c1.4VCPU-8GB");
}

TEST(Provision, APodLargerThanEveryTypeGetsAnActionableReason) {
  auto s = base_snapshot();
  s.pods.push_back(make_pod("huge", 64000, 1024));
  auto p = provision(s);
  EXPECT_TRUE(p.nodeclaims.empty());
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].reason.find("NodePool \"default\""), std::string::npos)
      << p.errors[0].reason;
  EXPECT_NE(p.errors[0].reason.find("no instance type has room"), std::string::npos)
      << p.errors[0].reason;
}

TEST(Provision, NoNodePoolMeansEveryPodIsReported) {
  auto s = base_snapshot();
  s.nodepools.clear();
  s.pods.push_back(make_pod("a", 100, 100));
  auto p = provision(s);
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].reason.find("no ready NodePool"), std::string::npos);
}

TEST(Provision, ExistingNodesWithRoomAreUsedFirst) {
  auto s = base_snapshot();
  s.nodes.push_back(kp::model::share(make_node("node-1", "z1", 4, 8)));
  s.pods.push_back(make_pod("a", 1000, 1024));
  auto p = provision(s);
  EXPECT_TRUE(p.nodeclaims.empty());
  ASSERT_EQ(p.bindings.size(), 1u);
  EXPECT_EQ(p.bindings[0].node, "node-1");
  EXPECT_FALSE(p.bindings[0].in_flight);
}

TEST(Provision, BoundPodsUseUpAnExistingNode) {
  auto s = base_snapshot();
  s.nodes.push_back(kp::model::share(make_node("node-1", "z1", 2, 8)));
  auto running = make_pod("running", 1500, 1024);
  running.node_name = "node-1";
  s.bound_pods.push_back(kp::model::share(running));
  s.pods.push_back(make_pod("a", 1000, 1024));
  auto p = provision(s);
  EXPECT_TRUE(p.bindings.empty());
  EXPECT_EQ(p.nodeclaims.size(), 1u);
}

TEST(Provision, ExistingNodesComeBeforeInFlightNodeClaims) {
  auto s = base_snapshot();
  kp::model::nodeclaim nc;
  nc.name = "default-abcde";
  nc.nodepool = "default";
  nc.labels = {{std::string(L::instance_type), "c1.4VCPU-8GB"}};
  s.nodeclaims.push_back(kp::model::share(nc));
  s.nodes.push_back(kp::model::share(make_node("node-1", "z1", 4, 8)));
  s.pods.push_back(make_pod("a", 1000, 1024));
  auto p = provision(s);
  ASSERT_EQ(p.bindings.size(), 1u);
  EXPECT_EQ(p.bindings[0].node, "node-1");
}

TEST(Provision, InFlightNodeClaimsTakePodsBeforeNewOnes) {
  auto s = base_snapshot();
  kp::model::nodeclaim nc;
  nc.name = "default-abcde";
  nc.nodepool = "default";
  nc.requirements = {{std::string(L::instance_type), op::in, {"c1.4VCPU-8GB"}, std::nullopt}};
  s.nodeclaims.push_back(kp::model::share(nc));
  s.pods.push_back(make_pod("a", 1000, 1024));
  auto p = provision(s);
  ASSERT_EQ(p.bindings.size(), 1u);
  EXPECT_EQ(p.bindings[0].node, "default-abcde");
  EXPECT_TRUE(p.bindings[0].in_flight);
  EXPECT_TRUE(p.nodeclaims.empty());
}

TEST(Provision, APodToleratingNothingLandsOnAnInFlightNodeWhoseOnlyTaintsAreStartupTaints) {
  auto s = base_snapshot();
  kp::model::nodeclaim nc;
  nc.name = "default-abcde";
  nc.nodepool = "default";
  nc.startup_taints = {{"example.com/agent-not-ready", "", "NoSchedule"}};
  nc.requirements = {{std::string(L::instance_type), op::in, {"c1.4VCPU-8GB"}, std::nullopt}};
  nc.node_name = "default-abcde";
  s.nodeclaims.push_back(kp::model::share(nc));
  // Registered but not initialized: it still carries the startup and unregistered taints.
  auto node = make_node("default-abcde", "z1", 4, 8);
  node.labels[std::string(L::nodepool)] = "default";
  node.taints = {{"example.com/agent-not-ready", "", "NoSchedule"},
                 {"karpenter.sh/unregistered", "", "NoExecute"}};
  s.nodes.push_back(kp::model::share(node));
  s.pods.push_back(make_pod("a", 1000, 1024));
  auto p = provision(s);
  ASSERT_EQ(p.bindings.size(), 1u);
  EXPECT_EQ(p.bindings[0].node, "default-abcde");
}

TEST(Provision, AnInitializedNodesTaintsMustBeTolerated) {
  auto s = base_snapshot();
  auto node = make_node("tainted", "z1", 4, 8);
  node.taints = {{"dedicated", "db", "NoSchedule"}};
  s.nodes.push_back(kp::model::share(node));
  s.pods.push_back(make_pod("a", 1000, 1024));
  auto p = provision(s);
  EXPECT_TRUE(p.bindings.empty());
  EXPECT_EQ(p.nodeclaims.size(), 1u);
  s.pods[0].tolerations = {{"dedicated", "Equal", "db", "NoSchedule", {}}};
  p = provision(s);
  ASSERT_EQ(p.bindings.size(), 1u);
}

TEST(Provision, NodePoolTaintsBlockPodsThatDoNotTolerateThem) {
  auto s = base_snapshot();
  s.nodepools[0].template_.taints = {{"dedicated", "gpu", "NoSchedule"}};
  s.pods.push_back(make_pod("plain", 100, 100));
  auto tolerant = make_pod("tolerant", 100, 100);
  tolerant.tolerations = {{"dedicated", "Exists", "", "", {}}};
  s.pods.push_back(tolerant);
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(p.nodeclaims[0].pods, std::vector<std::size_t>{1});
  auto* e = error_for(p, 0);
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->reason.find("did not tolerate taint dedicated=gpu:NoSchedule"), std::string::npos)
      << e->reason;
}

TEST(Provision, HigherWeightNodePoolsAreTriedFirst) {
  auto s = base_snapshot();
  s.nodepools.push_back(make_pool("preferred", 50));
  s.pods.push_back(make_pod("a", 100, 100));
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(p.nodeclaims[0].nodepool, "preferred");
}

TEST(Provision, EqualWeightsBreakTiesByNameDescending) {
  auto s = base_snapshot();
  s.nodepools.push_back(make_pool("zeta"));
  s.pods.push_back(make_pod("a", 100, 100));
  EXPECT_EQ(provision(s).nodeclaims[0].nodepool, "zeta");
}

TEST(Provision, ANodeSelectorOnAnUnknownLabelIsExplained) {
  auto s = base_snapshot();
  auto pod = make_pod("a", 100, 100);
  pod.node_selector = {{"team", "blue"}};
  s.pods.push_back(pod);
  auto p = provision(s);
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].reason.find("label \"team\" has no known values"), std::string::npos)
      << p.errors[0].reason;
  s.nodepools[0].template_.labels = {{"team", "blue"}};
  p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(p.nodeclaims[0].labels.at("team"), "blue");
}

TEST(Provision, NodeSelectorOnWellKnownLabelsNarrowsTheNodeClaim) {
  auto s = base_snapshot();
  auto pod = make_pod("a", 100, 100);
  pod.node_selector = {{std::string(L::zone), "z2"},
                       {std::string(L::instance_type), "s1.2VCPU-8GB"}};
  s.pods.push_back(pod);
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(req_values(p.nodeclaims[0], L::zone), std::vector<std::string>{"z2"});
  EXPECT_EQ(instance_type_names(p.nodeclaims[0], s), std::vector<std::string>{"s1.2VCPU-8GB"});
}

TEST(Provision, TheFirstSatisfiableOrTermOfRequiredNodeAffinityWins) {
  auto s = base_snapshot();
  auto pod = make_pod("a", 100, 100);
  kp::model::node_selector_term nowhere{{{std::string(L::zone), op::in, {"z9"}, std::nullopt}}, {}};
  kp::model::node_selector_term z2{{{std::string(L::zone), op::in, {"z2"}, std::nullopt}}, {}};
  kp::model::node_selector_term z3{{{std::string(L::zone), op::in, {"z3"}, std::nullopt}}, {}};
  pod.affinity.required = {nowhere, z2, z3};
  s.pods.push_back(pod);
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(req_values(p.nodeclaims[0], L::zone), std::vector<std::string>{"z2"});
}

TEST(Provision, PreferredNodeAffinityIsFollowedWhenSatisfiable) {
  auto s = base_snapshot();
  auto pod = make_pod("a", 100, 100);
  pod.affinity.preferred = {{10, {{{std::string(L::zone), op::in, {"z3"}, std::nullopt}}, {}}},
                            {50, {{{std::string(L::zone), op::in, {"z2"}, std::nullopt}}, {}}}};
  s.pods.push_back(pod);
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(req_values(p.nodeclaims[0], L::zone), std::vector<std::string>{"z2"});  // heaviest
}

TEST(Provision, UnsatisfiablePreferencesAreRelaxed) {
  auto s = base_snapshot();
  auto pod = make_pod("a", 100, 100);
  pod.affinity.preferred = {{50, {{{std::string(L::zone), op::in, {"z9"}, std::nullopt}}, {}}}};
  s.pods.push_back(pod);
  auto p = provision(s);
  EXPECT_TRUE(p.errors.empty());
  ASSERT_EQ(p.nodeclaims.size(), 1u);
}

TEST(Provision, PreferencePolicyIgnoreDisregardsPreferredAffinity) {
  auto s = base_snapshot();
  auto pod = make_pod("a", 100, 100);
  pod.affinity.preferred = {{50, {{{std::string(L::zone), op::in, {"z2"}, std::nullopt}}, {}}}};
  s.pods.push_back(pod);
  options o;
  o.preferences = preference_policy::ignore;
  auto p = provision(s, o);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_NE(req_values(p.nodeclaims[0], L::zone), std::vector<std::string>{"z2"});
}

TEST(Provision, ConflictingHostPortsNeedSeparateNodes) {
  auto s = base_snapshot();
  for (int i = 0; i < 2; ++i) {
    auto pod = make_pod("web" + std::to_string(i), 100, 100);
    pod.containers[0].host_ports = {{8080, "TCP", ""}};
    s.pods.push_back(pod);
  }
  auto udp = make_pod("dns", 100, 100);
  udp.containers[0].host_ports = {{8080, "UDP", ""}};
  s.pods.push_back(udp);
  auto p = provision(s);
  EXPECT_EQ(p.nodeclaims.size(), 2u);
  EXPECT_TRUE(p.errors.empty());
}

TEST(Provision, ThePodCountOfATypeLimitsHowManyPodsItTakes) {
  auto s = base_snapshot();
  auto types = instance_types::builtin_instance_types();
  types.resize(1);  // c1.1VCPU-2GB only
  types[0].capacity.set("pods", kp::model::quantity::from_units(2));
  instance_types::build_offerings(types, {{"region1", "z1", 64, 512LL << 30, true}});
  s.instance_types = types;
  for (int i = 0; i < 5; ++i) s.pods.push_back(make_pod("p" + std::to_string(i), 10, 10));
  auto p = provision(s);
  EXPECT_EQ(p.nodeclaims.size(), 3u);
}

TEST(Provision, InitContainersCountTowardRequests) {
  auto s = base_snapshot();
  auto pod = make_pod("a", 100, 100);
  kp::model::container init;
  init.requests.set("cpu", kp::model::quantity::from_units(3));
  pod.init_containers.push_back(init);
  s.pods.push_back(pod);
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(instance_type_names(p.nodeclaims[0], s).front(), "c1.4VCPU-8GB");
}

TEST(Provision, DaemonSetOverheadIsReservedOnNewNodeClaims) {
  auto s = base_snapshot();
  auto ds = make_pod("agent", 1000, 512);
  ds.owners = {{"DaemonSet", "agent", "u1", true}};
  s.daemonsets.push_back(ds);
  s.pods.push_back(make_pod("a", 500, 256));
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(p.nodeclaims[0].requests.milli("cpu"), 1500);
  EXPECT_EQ(instance_type_names(p.nodeclaims[0], s).front(), "c1.2VCPU-4GB");
}

TEST(Provision, DaemonSetsThatDoNotTolerateTheNodePoolAddNoOverhead) {
  auto s = base_snapshot();
  s.nodepools[0].template_.taints = {{"dedicated", "x", "NoSchedule"}};
  auto ds = make_pod("agent", 1000, 512);
  s.daemonsets.push_back(ds);
  auto pod = make_pod("a", 500, 256);
  pod.tolerations = {{"dedicated", "Exists", "", "", {}}};
  s.pods.push_back(pod);
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(p.nodeclaims[0].requests.milli("cpu"), 500);
}

TEST(Provision, RestrictedLabelsInNodeSelectorsAreRefused) {
  auto s = base_snapshot();
  auto pod = make_pod("a", 100, 100);
  pod.node_selector = {{std::string(L::hostname), "node-1"}};
  s.pods.push_back(pod);
  auto p = provision(s);
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].reason.find("restricted label"), std::string::npos);
}

TEST(Provision, BiggerPodsAreScheduledFirst) {
  auto s = base_snapshot();
  s.nodepools.clear();  // only the existing node
  s.nodes.push_back(kp::model::share(make_node("node-1", "z1", 2, 8)));
  s.pods.push_back(make_pod("small-but-older", 500, 100));
  s.pods.push_back(make_pod("big", 1800, 100));
  auto p = provision(s);
  ASSERT_EQ(p.bindings.size(), 1u);
  EXPECT_EQ(p.bindings[0].pod, 1u);
  EXPECT_NE(error_for(p, 0), nullptr);
}

TEST(Provision, VolumeZonesPinTheNodeClaim) {
  auto s = base_snapshot();
  auto pod = make_pod("db", 100, 100);
  pod.volumes = {{"data", "pvc-data", "", {"z3"}}};
  s.pods.push_back(pod);
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(req_values(p.nodeclaims[0], L::zone), std::vector<std::string>{"z3"});
}

TEST(Provision, UnavailableOfferingsAreNotChosen) {
  auto s = base_snapshot();
  instance_types::build_offerings(s.instance_types, {{"region1", "z1", 1, 1LL << 30, true},
                                                     {"region1", "z2", 64, 512LL << 30, true}});
  auto pod = make_pod("a", 100, 100);
  s.pods.push_back(pod);
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  pod.node_selector = {{std::string(L::zone), "z1"}};
  s.pods = {pod};
  p = provision(s);
  EXPECT_TRUE(p.nodeclaims.empty());
  ASSERT_EQ(p.errors.size(), 1u);
}

TEST(Provision, CustomRequirementsOfTheNodePoolBecomeLabels) {
  auto s = base_snapshot();
  s.nodepools[0].template_.requirements = {
      {"example.com/tier", op::in, {"gold"}, std::nullopt},
      {std::string(L::capacity_type), op::in, {"on-demand"}, std::nullopt}};
  s.pods.push_back(make_pod("a", 100, 100));
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(p.nodeclaims[0].labels.at("example.com/tier"), "gold");
  EXPECT_EQ(p.nodeclaims[0].labels.count(std::string(L::capacity_type)), 0u);
}

TEST(Provision, IdenticalPodsAreAllPlacedAndEachAppearsOnce) {
  auto s = base_snapshot();
  for (int i = 0; i < 300; ++i) s.pods.push_back(make_pod("p" + std::to_string(i), 250, 256));
  auto p = provision(s);
  EXPECT_TRUE(p.errors.empty());
  std::vector<int> seen(300, 0);
  for (const auto& nc : p.nodeclaims)
    for (auto i : nc.pods) ++seen[i];
  for (int c : seen) EXPECT_EQ(c, 1);
}

}  // namespace

namespace {

using namespace kp::scheduling;
using namespace kp::scheduling::test;
namespace L = kp::model::labels;

kp::model::nodeclaim unlaunched_two_zone_claim() {
  kp::model::nodeclaim nc;
  nc.name = "default-open";
  nc.nodepool = "default";
  nc.requirements = {{std::string(L::instance_type), op::in, {"c1.4VCPU-8GB"}, std::nullopt},
                     {std::string(L::zone), op::in, {"z1", "z2"}, std::nullopt}};
  return nc;
}

TEST(InFlight, APodNeedingAZoneDoesNotCountOnANodeClaimWhoseZoneIsStillOpen) {
  auto s = base_snapshot();
  s.nodeclaims.push_back(kp::model::share(unlaunched_two_zone_claim()));
  auto pod = make_pod("a", 100, 100);
  pod.node_selector = {{std::string(L::zone), "z1"}};
  s.pods.push_back(pod);
  auto p = provision(s);
  EXPECT_TRUE(p.bindings.empty());
  ASSERT_EQ(p.nodeclaims.size(), 1u);
}

TEST(InFlight, APodWithoutZoneNeedsUsesANodeClaimWhoseZoneIsStillOpen) {
  auto s = base_snapshot();
  s.nodeclaims.push_back(kp::model::share(unlaunched_two_zone_claim()));
  s.pods.push_back(make_pod("a", 100, 100));
  auto p = provision(s);
  ASSERT_EQ(p.bindings.size(), 1u);
  EXPECT_TRUE(p.bindings[0].in_flight);
}

// A claim as the provisioner creates it from a plan, before launch: no status, and every
// instance type that fits its pods `In` its requirements.
kp::model::nodeclaim unlaunched_claim_for(const snapshot& s, const std::string& name) {
  auto first = provision(s);
  EXPECT_EQ(first.nodeclaims.size(), 1u);
  if (first.nodeclaims.empty()) return {};
  EXPECT_GT(first.nodeclaims[0].instance_types.size(), 1u);
  kp::model::nodeclaim nc;
  nc.name = name;
  nc.nodepool = first.nodeclaims[0].nodepool;
  nc.labels = first.nodeclaims[0].labels;
  nc.requirements = nodeclaim_requirements(first.nodeclaims[0], s);
  nc.requests = first.nodeclaims[0].requests;
  return nc;
}

TEST(InFlight, APendingPodWhoseNominationWasLostCountsOnTheUnlaunchedClaimMadeForIt) {
  // After a controller restart the pod is pending again with no nomination; the claim made for
  // it names several instance types and has no allocatable yet.
  auto s = base_snapshot();
  s.pods.push_back(make_pod("web", 500, 1024));
  auto nc = unlaunched_claim_for(s, "default-resum");
  s.nodeclaims.push_back(kp::model::share(nc));
  auto p = provision(s);
  EXPECT_TRUE(p.nodeclaims.empty()) << "a second claim for the same pod";
  ASSERT_EQ(p.bindings.size(), 1u);
  EXPECT_EQ(p.bindings[0].node, "default-resum");
  EXPECT_TRUE(p.bindings[0].in_flight);
}

TEST(InFlight, AnUnlaunchedClaimOffersOnlyWhatItsSmallestInstanceTypeHolds) {
  auto s = base_snapshot();
  s.pods.push_back(make_pod("small", 500, 1024));
  s.nodeclaims.push_back(kp::model::share(unlaunched_claim_for(s, "default-small")));
  // Room for a second small pod, but not for one bigger than the smallest type it may become.
  s.pods.clear();
  s.pods.push_back(make_pod("also-small", 100, 128));
  s.pods.push_back(make_pod("big", 8000, 16384));
  auto p = provision(s);
  ASSERT_EQ(p.bindings.size(), 1u);
  EXPECT_EQ(s.pods[p.bindings[0].pod].name, "also-small");
  EXPECT_EQ(p.bindings[0].node, "default-small");
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  ASSERT_EQ(p.nodeclaims[0].pods.size(), 1u);
  EXPECT_EQ(s.pods[p.nodeclaims[0].pods[0]].name, "big");
}

TEST(InFlight, ZonalSpreadDoesNotPinAnInFlightNodeClaimsZone) {
  auto s = base_snapshot();
  s.nodeclaims.push_back(kp::model::share(unlaunched_two_zone_claim()));
  auto pod = make_pod("a", 100, 100);
  pod.labels = {{"app", "web"}};
  pod.topology_spread = {app_spread(L::zone, "web")};
  s.pods.push_back(pod);
  auto p = provision(s);
  EXPECT_TRUE(p.bindings.empty());
  EXPECT_EQ(p.nodeclaims.size(), 1u);
}

}  // namespace

namespace {

using namespace kp::scheduling;
using namespace kp::scheduling::test;

TEST(Provision, ADaemonSetNotYetRunningOnAnExistingNodeReservesItsShare) {
  auto s = base_snapshot();
  s.nodes.push_back(kp::model::share(make_node("node-1", "z1", 2, 8)));
  auto ds = make_pod("agent", 1500, 100);
  ds.owners = {{"DaemonSet", "agent", "u1", true}};
  s.daemonsets.push_back(ds);
  s.pods.push_back(make_pod("a", 1000, 100));
  auto p = provision(s);
  EXPECT_TRUE(p.bindings.empty());
  // Once the DaemonSet's pod runs there, the rest of the node is free for the pod.
  auto running = ds;
  running.name = "agent-xyz";
  running.node_name = "node-1";
  s.bound_pods.push_back(kp::model::share(running));
  auto roomier = *s.nodes[0];
  roomier.allocatable.set("cpu", kp::model::quantity::from_units(3));
  s.nodes[0] = kp::model::share(roomier);
  p = provision(s);
  ASSERT_EQ(p.bindings.size(), 1u);
}

}  // namespace

namespace {

using namespace kp::scheduling;
using namespace kp::scheduling::test;
namespace L = kp::model::labels;

TEST(Relaxation, RequiredOrTermsAreTriedBeforePreferencesAreDropped) {
  auto s = base_snapshot();
  auto pod = make_pod("a", 100, 100);
  pod.affinity.required = {{{{std::string(L::zone), op::in, {"z9"}, std::nullopt}}, {}},
                           {{{std::string(L::zone), op::in, {"z1", "z2"}, std::nullopt}}, {}}};
  pod.affinity.preferred = {{50, {{{std::string(L::zone), op::in, {"z2"}, std::nullopt}}, {}}}};
  s.pods.push_back(pod);
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  // The second OR-term with the preference still applied: z2.
  EXPECT_EQ(req_values(p.nodeclaims[0], L::zone), std::vector<std::string>{"z2"});
}

}  // namespace

namespace {

using namespace kp::scheduling;
using namespace kp::scheduling::test;

TEST(EdgeCases, AnEmptySnapshotGivesAnEmptyPlan) {
  auto p = provision(snapshot{});
  EXPECT_TRUE(p.nodeclaims.empty());
  EXPECT_TRUE(p.bindings.empty());
  EXPECT_TRUE(p.errors.empty());
}

TEST(EdgeCases, NoInstanceTypesIsExplainedForEveryPod) {
  auto s = base_snapshot();
  s.instance_types.clear();
  for (int i = 0; i < 3; ++i) {
    auto pod = make_pod("p" + std::to_string(i), 100, 100);
    pod.labels = {{"app", "x"}};
    pod.topology_spread = {app_spread(kp::model::labels::zone, "x")};
    s.pods.push_back(pod);
  }
  auto p = provision(s);
  ASSERT_EQ(p.errors.size(), 3u);
  EXPECT_NE(p.errors[0].reason.find("no instance type is compatible"), std::string::npos)
      << p.errors[0].reason;
}

TEST(EdgeCases, APodWithNoRequestsStillTakesAPodSlot) {
  auto s = base_snapshot();
  auto pod = make_pod("empty", 0, 0);
  pod.containers[0].requests = {};
  s.pods.push_back(pod);
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(p.nodeclaims[0].requests.milli("pods"), 1000);
}

}  // namespace
