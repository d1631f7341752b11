#include "core/placement/cpu_pinning.hpp"

#include <gtest/gtest.h>

#include "core/placement/place_vm.hpp"
#include "test/core/placement/fixtures.hpp"

namespace kp::placement {
namespace {

using testing::gib;
using testing::make_host;

TEST(PredictTopology, SplitsSocketsIntoNumaNodesWithSiblingsInTheSecondHalf) {
  auto t = testing::two_socket_host();
  ASSERT_EQ(t.numa_nodes.size(), 2u);
  EXPECT_EQ(t.numa_nodes[0].cpus.to_string(), "0-7,16-23");
  EXPECT_EQ(t.numa_nodes[1].cpus.to_string(), "8-15,24-31");
  EXPECT_EQ(t.physical_core_of(16), 0);
  EXPECT_EQ(t.numa_nodes[0].memory_bytes, 64 * gib);
}

TEST(CpuPinning, AVmThatFitsOneNumaNodeTakesWholeCoresThere) {
  auto host = make_host("pve1");
  auto p = choose_pinning(host, 4, 8 * gib);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->cpus.to_string(), "0-1,16-17");  // two physical cores with their siblings
  ASSERT_EQ(p->numa.size(), 1u);
  EXPECT_EQ(p->numa[0].host_node, 0);
  EXPECT_EQ(p->numa[0].memory_bytes, 8 * gib);
}

TEST(CpuPinning, PinnedVmsOnOneHostNeverOverlap) {
  auto host = make_host("pve1");
  cpu_set taken;
  for (int vmid = 100; vmid < 107; ++vmid) {
    auto p = choose_pinning(host, 4, 4 * gib);
    ASSERT_TRUE(p) << vmid;
    EXPECT_FALSE(p->cpus.intersects(taken)) << vmid;
    EXPECT_EQ(p->numa.size(), 1u) << "a 4-vCPU VM fits in one node";
    taken = taken | p->cpus;
    host.add({vmid, 4, 4 * gib, p->cpus, p->numa, true});
  }
  EXPECT_EQ(taken.size(), 28);
}

TEST(CpuPinning, TheFullestNodeThatFitsIsChosenToKeepLargeHoles) {
  auto host = make_host("pve1");
  auto first = choose_pinning(host, 2, gib);
  host.add({1, 2, gib, first->cpus, first->numa, true});
  auto second = choose_pinning(host, 2, gib);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->numa[0].host_node, first->numa[0].host_node);
}

TEST(CpuPinning, AnOddVcpuCountFillsAHalfUsedCoreNext) {
  auto host = make_host("pve1");
  auto three = choose_pinning(host, 3, gib);
  ASSERT_TRUE(three);
  EXPECT_EQ(three->cpus.to_string(), "0-1,16");
  host.add({1, 3, gib, three->cpus, three->numa, true});
  auto one = choose_pinning(host, 1, gib);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->cpus.to_string(), "17") << "the free sibling of core 1 fills the hole";
}

TEST(CpuPinning, AVmLargerThanANodeSpansNodesWithMemorySharedByVcpus) {
  auto host = make_host("pve1");
  auto p = choose_pinning(host, 24, 48 * gib);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->cpus.size(), 24);
  ASSERT_EQ(p->numa.size(), 2u);
  EXPECT_EQ(p->numa[0].first_guest_cpu, 0);
  EXPECT_EQ(p->numa[0].last_guest_cpu, 15);
  EXPECT_EQ(p->numa[1].first_guest_cpu, 16);
  EXPECT_EQ(p->numa[1].last_guest_cpu, 23);
  EXPECT_EQ(p->numa[0].memory_bytes, 32 * gib);
  EXPECT_EQ(p->numa[1].memory_bytes, 16 * gib);
  EXPECT_EQ(p->numa[0].memory_bytes + p->numa[1].memory_bytes, 48 * gib);
}

TEST(CpuPinning, MemoryThatNoNodeHasForcesASpanOrARefusal) {
  auto host = make_host("pve1");
  // 2 vCPUs but 100 GiB: no single node has it; spread by vCPU share it does not fit either.
  EXPECT_FALSE(choose_pinning(host, 2, 100 * gib));
  EXPECT_FALSE(choose_pinning(host, 33, gib)) << "more vCPUs than the host has";
}

TEST(CpuPinning, UnpinnedVmsKeepTheirShareOfCpus) {
  auto host = make_host("pve1");
  host.add({1, 30, gib, {}, {}, false});
  EXPECT_EQ(host.free_cpus(), 2);
  EXPECT_FALSE(choose_pinning(host, 4, gib));
  EXPECT_TRUE(choose_pinning(host, 2, gib));
}

TEST(CpuPinning, EachNumaNodeCountsItsOwnPinnedCpusAndUnpinnedVmsOnlyOnTheHost) {
  auto host = make_host("pve1");
  auto p = choose_pinning(host, 4, 8 * gib);
  ASSERT_TRUE(p);
  host.add({7, 4, 8 * gib, p->cpus, p->numa, true});
  host.add({8, 6, 2 * gib, {}, {}, true});
  const int pinned_node = p->numa.front().host_node;
  EXPECT_EQ(host.numa_free_cpus(static_cast<std::size_t>(pinned_node)), 12);
  EXPECT_EQ(host.numa_free_cpus(static_cast<std::size_t>(1 - pinned_node)), 16);
  EXPECT_EQ(host.free_cpus(), 32 - 4 - 6);
  EXPECT_EQ(host.numa_free_cpus(2), 0) << "a node the host does not have";
}

TEST(CpuPinning, RemovingAVmFreesItsCpusForTheNext) {
  auto host = make_host("pve1");
  auto p = choose_pinning(host, 16, 8 * gib);
  host.add({7, 16, 8 * gib, p->cpus, p->numa, true});
  EXPECT_TRUE(host.remove(7));
  EXPECT_FALSE(host.remove(7));
  EXPECT_EQ(host.free_cpus(), 32);
  EXPECT_EQ(choose_pinning(host, 16, 8 * gib)->cpus, p->cpus);
}

TEST(PlaceVm, StaticPolicyPinsAndRecordsTheAllocation) {
  std::vector<host_state> hosts{make_host("pve1")};
  placement_cursor cursor;
  auto d = place_vm(hosts, 100, {4, 4 * gib}, {}, strategy::balanced, cpu_policy::static_pinning,
                    cursor);
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE(d->pinned);
  EXPECT_EQ(hosts[0].pinned_cpus(), d->pinned->cpus);
}

TEST(PlaceVm, SimplePolicyCountsWithoutPinning) {
  std::vector<host_state> hosts{make_host("pve1")};
  placement_cursor cursor;
  auto d = place_vm(hosts, 100, {4, 4 * gib}, {}, strategy::balanced, cpu_policy::simple, cursor);
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->pinned);
  EXPECT_TRUE(hosts[0].pinned_cpus().empty());
  EXPECT_EQ(hosts[0].free_cpus(), 28);
}

}  // namespace
}  // namespace kp::placement
