#include "core/topology/topology_vm.hpp"

#include <gtest/gtest.h>

#include <random>

namespace kp::topology {
namespace {

constexpr std::int64_t mib = std::int64_t{1} << 20;

// What pve-sim's default host (2 sockets x 8 cores x 2 threads) publishes, as the Go daemon
// writes it: the affinity lists node 0's CPUs first, then node 1's.
std::map<std::string, std::string> two_node_vm() {
  return {{"name", "node-capacity"},
          {"tags", "karpenter"},
          {"cores", "32"},
          {"sockets", "1"},
          {"numa", "1"},
          {"affinity", "0-7,16-23,8-15,24-31"},
          {"numa0", "cpus=0-15,hostnodes=0,memory=64512"},
          {"numa1", "cpus=16-31,hostnodes=1,memory=64512,policy=bind"},
          {"memory", "129024"}};
}

TEST(TopologyVm, TheVmIsRecognisedByNameAndKarpenterTag) {
  EXPECT_TRUE(is_topology_vm("node-capacity", "karpenter"));
  EXPECT_TRUE(is_topology_vm("node-capacity", "foo;karpenter"));
  EXPECT_TRUE(is_topology_vm("node-capacity", "karpenter,bar"));
  EXPECT_FALSE(is_topology_vm("node-capacity", "karpenters"));
  EXPECT_FALSE(is_topology_vm("node-capacity", ""));
  EXPECT_FALSE(is_topology_vm("node-capacity-2", "karpenter"));
}

TEST(TopologyVm, EachNumaEntryMapsGuestCpusThroughTheAffinityToHostCpus) {
  auto t = topology_from_vm_config(9901, two_node_vm(), {2, 8, 32});
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->numa_nodes.size(), 2u);
  EXPECT_EQ(t->numa_nodes[0].id, 0);
  EXPECT_EQ(t->numa_nodes[0].cpus.to_string(), "0-7,16-23");
  EXPECT_EQ(t->numa_nodes[0].memory_bytes, 64512 * mib);
  EXPECT_EQ(t->numa_nodes[1].id, 1);
  EXPECT_EQ(t->numa_nodes[1].cpus.to_string(), "8-15,24-31");
  EXPECT_EQ(t->sockets, 2);
  EXPECT_EQ(t->cores_per_socket, 8);
  EXPECT_EQ(t->threads_per_core, 2);
  EXPECT_EQ(t->reserved_memory_bytes, 0) << "the daemon already left memory out";
  EXPECT_EQ(t->total_cpus(), 32);
}

TEST(TopologyVm, ProxmoxSemicolonListsInNumaCpusAreRead) {
  auto vm = two_node_vm();
  vm["numa0"] = "cpus=0-7;8-15,hostnodes=0,memory=1024";
  auto t = topology_from_vm_config(1, vm, {2, 8, 32});
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->numa_nodes[0].cpus.to_string(), "0-7,16-23");
}

TEST(TopologyVm, WithoutNumaEntriesTheWholeAffinityIsOneNodeWithTheVmMemory) {
  std::map<std::string, std::string> vm = {{"affinity", "0-3"}, {"memory", "2048"}};
  auto t = topology_from_vm_config(7, vm, {});
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->numa_nodes.size(), 1u);
  EXPECT_EQ(t->numa_nodes[0].cpus.to_string(), "0-3");
  EXPECT_EQ(t->numa_nodes[0].memory_bytes, 2048 * mib);
  EXPECT_EQ(t->sockets, 1);
  EXPECT_EQ(t->cores_per_socket, 4);
  EXPECT_EQ(t->threads_per_core, 1);
}

TEST(TopologyVm, ANodeStatusThatDisagreesWithTheVmFallsBackToNoSmt) {
  auto t = topology_from_vm_config(1, two_node_vm(), {3, 7, 42});
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->sockets, 1);
  EXPECT_EQ(t->cores_per_socket, 32);
  EXPECT_EQ(t->threads_per_core, 1);
}

struct bad_case {
  const char* key;
  const char* value;
  const char* expected;  // in the message
};

class TopologyVmRejects : public ::testing::TestWithParam<bad_case> {};

TEST_P(TopologyVmRejects, ABrokenEntryWithAnErrorNamingTheVmKeyAndValue) {
  auto vm = two_node_vm();
  if (std::string(GetParam().value) == "<erase>") {
    vm.erase(GetParam().key);
  } else {
    vm[GetParam().key] = GetParam().value;
  }
  auto t = topology_from_vm_config(9901, vm, {2, 8, 32});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, "invalid_topology_vm");
  EXPECT_NE(t.error().message.find("topology VM 9901"), std::string::npos) << t.error().message;
  EXPECT_NE(t.error().message.find(GetParam().expected), std::string::npos) << t.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, TopologyVmRejects,
    ::testing::Values(bad_case{"affinity", "<erase>", "affinity is missing"},
                      bad_case{"affinity", "0-x", "affinity \"0-x\": not a CPU list"},
                      bad_case{"affinity", "0-3,2", "host CPU 2 listed twice"},
                      bad_case{"numa1", "cpus=16-40,hostnodes=1,memory=1", "beyond the 32 CPUs"},
                      bad_case{"numa1", "hostnodes=1,memory=1", "cpus is missing"},
                      bad_case{"numa1", "cpus=16-31,memory=1", "hostnodes is missing"},
                      bad_case{"numa1", "cpus=16-31,hostnodes=0-1,memory=1", "exactly one"},
                      bad_case{"numa1", "cpus=16-31,hostnodes=1,memory=lots", "MiB"},
                      bad_case{"numa1", "cpus=10-31,hostnodes=1,memory=1", "overlap"},
                      bad_case{"numa1", "cpus=16-31,hostnodes=0,memory=1",
                               "host node listed twice"}));

}  // namespace
}  // namespace kp::topology

namespace kp::topology {
namespace {

TEST(TopologyVm, RandomConfigValuesNeverCrash) {
  std::mt19937 rng(11);
  const std::string alphabet = "0123456789-,;=cpushostndemry ";
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::uniform_int_distribution<int> length(0, 30);
  auto garbage = [&] {
    std::string s;
    for (int n = length(rng); n > 0; --n) s += alphabet[pick(rng)];
    return s;
  };
  int ok = 0;
  for (int i = 0; i < 5000; ++i) {
    std::map<std::string, std::string> vm = {
        {"affinity", garbage()}, {"numa0", garbage()}, {"numa1", garbage()}, {"memory", garbage()}};
    auto t = topology_from_vm_config(1, vm, {2, 8, 32});
    if (t) {
      ++ok;
      EXPECT_FALSE(t->numa_nodes.empty());
      EXPECT_GE(t->threads_per_core, 1);
    }
  }
  (void)ok;
}

}  // namespace
}  // namespace kp::topology
