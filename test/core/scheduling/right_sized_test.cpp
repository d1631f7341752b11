// Family f1 in the provisioning simulation: right-sized NodeClaims, opt-in per NodePool.
#include <gtest/gtest.h>

#include "core/instance_types/right_sized.hpp"
#include "core/scheduling/provision.hpp"
#include "test/core/scheduling/fixtures.hpp"

namespace {

using namespace kp::scheduling;
using namespace kp::scheduling::test;
namespace L = kp::model::labels;
namespace it = kp::instance_types;
namespace model = kp::model;
constexpr std::int64_t MiB = 1024LL * 1024;
constexpr std::int64_t GiB = 1024 * MiB;

model::node_selector_requirement families(std::vector<std::string> values) {
  return {std::string(L::instance_family), op::in, std::move(values), std::nullopt};
}

// The built-in types and f1 on three hosts of 32 CPUs / 128Gi; one NodePool that names the
// families it allows (none: it leaves them open).
snapshot f1_snapshot(std::vector<std::string> allowed = {"f1"}) {
  auto s = base_snapshot();
  for (const char* z : {"z1", "z2", "z3"})
    s.right_sized.zones.push_back({"region1", z, 32, 128 * GiB, true});
  if (!allowed.empty()) s.nodepools[0].template_.requirements.push_back(families(allowed));
  return s;
}

it::vm_size size_of(const planned_nodeclaim& nc) {
  EXPECT_TRUE(nc.right_sized.has_value());
  if (!nc.right_sized) return {};
  auto size = it::parse_right_sized_name(nc.right_sized->name);
  EXPECT_TRUE(size);
  return size ? *size : it::vm_size{};
}

TEST(RightSizedScheduling, APodOfThreeCpusAndFiveGiBGetsAtMostFourVcpusAndSevenAndAHalfGiB) {
  auto s = f1_snapshot();
  s.right_sized.memory_overhead_percent = 0.075;
  s.pods.push_back(make_pod("app", 3000, 5 * 1024));
  auto p = provision(s);
  ASSERT_TRUE(p.errors.empty()) << p.errors[0].reason;
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  const auto& nc = p.nodeclaims[0];
  auto size = size_of(nc);
  EXPECT_LE(size.vcpus, 4);
  EXPECT_LE(size.memory_mib, 7680);
  EXPECT_EQ(nc.right_sized->name, "f1.4VCPU-6144MB");
  EXPECT_EQ(instance_type_names(nc, s), std::vector<std::string>{"f1.4VCPU-6144MB"});
  EXPECT_DOUBLE_EQ(nc.price, it::right_sized_price({4, 6144}));
  // Its offerings: every host has the room.
  ASSERT_EQ(nc.right_sized->offerings.size(), 3u);
  for (const auto& o : nc.right_sized->offerings) EXPECT_TRUE(o.available);
  EXPECT_EQ(req_values(nc, L::capacity_type), std::vector<std::string>{"on-demand"});
  auto reqs = nodeclaim_requirements(nc, s);
  EXPECT_EQ(reqs.back().values, std::vector<std::string>{"f1.4VCPU-6144MB"});
}

TEST(RightSizedScheduling, APoolThatLeavesFamiliesOpenKeepsTheFixedCatalogue) {
  auto s = f1_snapshot({});
  s.pods.push_back(make_pod("app", 3000, 5 * 1024));
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_FALSE(p.nodeclaims[0].right_sized);
  for (const auto& name : instance_type_names(p.nodeclaims[0], s))
    EXPECT_FALSE(it::is_right_sized_name(name)) << name;
  EXPECT_EQ(instance_type_names(p.nodeclaims[0], s).front(), "c1.4VCPU-8GB");
}

TEST(RightSizedScheduling, NotInOnOtherFamiliesIsNoOptIn) {
  auto s = f1_snapshot({});
  s.nodepools[0].template_.requirements.push_back(
      {std::string(L::instance_family), op::not_in, {"m1"}, std::nullopt});
  s.pods.push_back(make_pod("app", 1000, 1024));
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_FALSE(p.nodeclaims[0].right_sized);
}

TEST(RightSizedScheduling, APoolOfF1AndT1ListsTheRightSizedTypeFirstAndFixedOnesAfter) {
  auto s = f1_snapshot({"f1", "t1"});
  s.pods.push_back(make_pod("app", 1500, 2048));
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  auto names = instance_type_names(p.nodeclaims[0], s);
  ASSERT_GE(names.size(), 2u);
  EXPECT_EQ(names.front(), "f1.2VCPU-2560MB");
  EXPECT_EQ(p.nodeclaims[0].right_sized_rank, 0u);
  for (std::size_t i = 1; i < names.size(); ++i) EXPECT_EQ(names[i].rfind("t1.", 0), 0u);
}

TEST(RightSizedScheduling, APodThatAsksForAFixedFamilyGetsNoRightSizedOption) {
  auto s = f1_snapshot({"f1", "t1"});
  auto pod = make_pod("app", 1500, 2048);
  pod.node_selector = {{std::string(L::instance_family), "t1"}};
  s.pods.push_back(pod);
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_FALSE(p.nodeclaims[0].right_sized);
  EXPECT_EQ(instance_type_names(p.nodeclaims[0], s).front(), "t1.2VCPU-6GB");
}

TEST(RightSizedScheduling, APodThatAsksForF1FindsItOnlyInAnOptedInPool) {
  auto s = f1_snapshot();
  auto open = make_pool("open", 10);  // heavier, but leaves families open: no f1 there
  s.nodepools.push_back(open);
  auto pod = make_pod("app", 1000, 1024);
  pod.node_selector = {{std::string(L::instance_family), "f1"}};
  s.pods.push_back(pod);
  auto p = provision(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(p.nodeclaims[0].nodepool, "default");
  EXPECT_TRUE(p.nodeclaims[0].right_sized);
}

TEST(RightSizedScheduling, EachNodeClaimIsTheSmallestSizeHoldingItsPodsAndDaemonSets) {
  auto s = f1_snapshot();
  auto ds = make_pod("agent", 200, 300);
  ds.owners = {{"DaemonSet", "agent", "u1", true}};
  s.daemonsets.push_back(ds);
  for (int i = 0; i < 40; ++i) s.pods.push_back(make_pod("p" + std::to_string(i), 700, 900));
  for (int i = 0; i < 25; ++i) s.pods.push_back(make_pod("q" + std::to_string(i), 300, 2500));
  auto p = provision(s);
  ASSERT_TRUE(p.errors.empty()) << p.errors[0].reason;
  ASSERT_FALSE(p.nodeclaims.empty());
  std::size_t pods = 0;
  for (const auto& nc : p.nodeclaims) {
    pods += nc.pods.size();
    it::vm_need need{nc.requests.milli("cpu"), (nc.requests.milli("memory") + 999) / 1000,
                     (nc.requests.milli("pods") + 999) / 1000, 0};
    EXPECT_EQ(size_of(nc), *it::smallest_right_size(need, 0));
    EXPECT_GE(nc.right_sized->allocatable().milli("cpu"), nc.requests.milli("cpu"));
    EXPECT_GE(nc.right_sized->allocatable().milli("memory"), nc.requests.milli("memory"));
    EXPECT_LE(size_of(nc).vcpus, 32);
  }
  EXPECT_EQ(pods, 65u);
}

TEST(RightSizedScheduling, NoNodeClaimIsLargerThanTheRoomOfAHost) {
  auto s = f1_snapshot();
  s.right_sized.zones = {{"region1", "z1", 8, 16 * GiB, true},
                         {"region1", "z2", 12, 64 * GiB, true}};
  for (int i = 0; i < 30; ++i) s.pods.push_back(make_pod("p" + std::to_string(i), 1000, 1024));
  auto p = provision(s);
  ASSERT_TRUE(p.errors.empty()) << p.errors[0].reason;
  for (const auto& nc : p.nodeclaims) {
    auto size = size_of(nc);
    EXPECT_LE(size.vcpus, 12);
    bool somewhere = false;
    for (const auto& o : nc.right_sized->offerings) somewhere = somewhere || o.available;
    EXPECT_TRUE(somewhere) << nc.right_sized->name;
  }
}

TEST(RightSizedScheduling, AClaimTooLargeForEveryHostIsUnschedulableWithAReason) {
  auto s = f1_snapshot();
  s.right_sized.zones = {{"region1", "z1", 8, 16 * GiB, true}};
  s.pods.push_back(make_pod("huge", 12000, 1024));
  auto p = provision(s);
  EXPECT_TRUE(p.nodeclaims.empty());
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].reason.find("no instance type has room"), std::string::npos)
      << p.errors[0].reason;
}

TEST(RightSizedScheduling, WithoutHostsTheFamilyIsOfferedNowhere) {
  auto s = f1_snapshot();
  s.right_sized.zones.clear();
  s.pods.push_back(make_pod("app", 1000, 1024));
  auto p = provision(s);
  EXPECT_TRUE(p.nodeclaims.empty());
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].reason.find("no instance type is compatible"), std::string::npos)
      << p.errors[0].reason;
}

TEST(RightSizedScheduling, ExtendedResourcesNeverFitAnF1Type) {
  auto s = f1_snapshot();
  auto pod = make_pod("gpu", 1000, 1024);
  pod.containers[0].requests.set("nvidia.com/gpu", model::quantity::from_units(1));
  s.pods.push_back(pod);
  auto p = provision(s);
  EXPECT_TRUE(p.nodeclaims.empty());
  EXPECT_EQ(p.errors.size(), 1u);
}

TEST(RightSizedScheduling, LimitsCountEachClaimAtItsSizeNotAtTheLargestHost) {
  auto s = f1_snapshot();
  s.nodepools[0].limits.set("cpu", model::quantity::from_units(10));
  for (int i = 0; i < 5; ++i) s.pods.push_back(make_pod("p" + std::to_string(i), 3000, 1024));
  auto p = provision(s);
  // Three pods need 9 CPUs plus the reservation: a 10-vCPU VM, the whole limit.
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(size_of(p.nodeclaims[0]).vcpus, 10);
  EXPECT_EQ(p.nodeclaims[0].pods.size(), 3u);
  ASSERT_EQ(p.errors.size(), 2u);
  EXPECT_NE(p.errors[0].reason.find("limits"), std::string::npos) << p.errors[0].reason;
}

TEST(RightSizedScheduling, AnInFlightF1ClaimCountsAgainstLimitsWithTheSizeItNames) {
  auto s = f1_snapshot();
  s.nodepools[0].limits.set("cpu", model::quantity::from_units(10));
  model::nodeclaim in_flight;
  in_flight.name = "default-abc";
  in_flight.nodepool = "default";
  in_flight.labels = {{std::string(L::instance_type), "f1.8VCPU-4096MB"},
                      {std::string(L::nodepool), "default"}};
  in_flight.taints = {{"full", "", "NoSchedule"}};  // no pod lands on it
  s.nodeclaims.push_back(kp::model::share(in_flight));
  s.pods.push_back(make_pod("small", 1500, 512));
  s.pods.push_back(make_pod("big", 2500, 512));
  auto p = provision(s);
  // 2 vCPUs are left: the 1.5 CPU pod fits a 2-vCPU VM, the 2.5 CPU one nothing.
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(size_of(p.nodeclaims[0]).vcpus, 2);
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_EQ(p.errors[0].pod, 1u);
}

TEST(RightSizedScheduling, KubeletMaxPodsCapsHowManyPodsAnF1ClaimTakes) {
  auto s = f1_snapshot();
  s.nodepools[0].kubelet_max_pods = 10;
  for (int i = 0; i < 25; ++i) s.pods.push_back(make_pod("p" + std::to_string(i), 100, 128));
  auto p = provision(s);
  ASSERT_TRUE(p.errors.empty());
  EXPECT_EQ(p.nodeclaims.size(), 3u);
  for (const auto& nc : p.nodeclaims) EXPECT_LE(nc.pods.size(), 10u);
}

TEST(RightSizedScheduling, SmallPodsFillWholeVcpusBeforeThePodLimitBinds) {
  // 100m pods: 108 fill an 11-vCPU VM (10.89 CPUs allocatable); the 110-pod limit would need a
  // 12th vCPU for two more pods, which costs more per pod than starting the next VM.
  auto s = f1_snapshot();
  s.right_sized.zones = {{"region1", "z1", 1024, 4096 * GiB, true}};
  for (int i = 0; i < 1000; ++i) s.pods.push_back(make_pod("p" + std::to_string(i), 100, 128));
  auto p = provision(s);
  ASSERT_TRUE(p.errors.empty());
  double cost = 0;
  for (const auto& nc : p.nodeclaims) cost += nc.price;
  // Ten VMs of 11 vCPUs would hold 1,080 pods; the plan is within 2% of that.
  EXPECT_LE(cost, 1.02 * 1000.0 / 108 * it::right_sized_price({11, 14592}));
  EXPECT_EQ(size_of(p.nodeclaims[0]).vcpus, 11);
}

TEST(RightSizedScheduling, MinValuesOnInstanceTypesCountsTheF1OptionOnce) {
  auto s = f1_snapshot({"f1", "c1"});
  s.nodepools[0].template_.requirements.push_back(
      {std::string(L::instance_type), op::exists, {}, 3});
  s.pods.push_back(make_pod("app", 3000, 1024));
  auto p = provision(s);
  // c1.4VCPU-8GB, c1.8VCPU-16GB, c1.16VCPU-32GB and the f1 type: four.
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(instance_type_names(p.nodeclaims[0], s).size(), 4u);
  EXPECT_FALSE(p.nodeclaims[0].min_values_relaxed);
  s.nodepools[0].template_.requirements.back().min_values = 5;
  EXPECT_TRUE(provision(s).nodeclaims.empty());
}

}  // namespace
