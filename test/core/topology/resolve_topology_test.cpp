#include "core/topology/resolve_topology.hpp"

#include <gtest/gtest.h>

namespace kp::topology {
namespace {

constexpr std::int64_t gib = std::int64_t{1} << 30;

// pve-sim's default host: 2 sockets x 8 cores x 2 threads, 128 GiB.
host_observation pve1() {
  host_observation h;
  h.region = "region-1";
  h.host = "pve1";
  h.cpu = {2, 8, 32};
  h.memory_bytes = 128 * gib;
  return h;
}

host_observation::vm capacity_vm() {
  return {9901,
          {{"affinity", "0-7,16-23,8-15,24-31"},
           {"numa0", "cpus=0-15,hostnodes=0,memory=64512"},
           {"numa1", "cpus=16-31,hostnodes=1,memory=64512"}}};
}

TEST(ResolveTopology, WithoutTopologyVmOrFileTheNodeStatusPredictionIsUsed) {
  auto r = resolve_host_topology(pve1(), nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->source, topology_source::predicted);
  EXPECT_FALSE(r->from_file);
  ASSERT_EQ(r->topology.numa_nodes.size(), 2u);
  EXPECT_EQ(r->topology.numa_nodes[1].cpus.to_string(), "8-15,24-31");
  EXPECT_EQ(r->topology.reserved_memory_bytes, gib) << "the Go provider's 1 GiB";
}

TEST(ResolveTopology, TheTopologyVmReplacesThePrediction) {
  auto h = pve1();
  h.topology_vm = capacity_vm();
  auto r = resolve_host_topology(h, nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->source, topology_source::topology_vm);
  EXPECT_EQ(r->topology.numa_nodes[0].memory_bytes, std::int64_t{64512} << 20);
  EXPECT_EQ(r->topology.reserved_memory_bytes, 0);
  EXPECT_FALSE(r->warning);
}

TEST(ResolveTopology, ABrokenTopologyVmFallsBackToThePredictionWithAWarning) {
  auto h = pve1();
  h.topology_vm = capacity_vm();
  h.topology_vm->config["numa1"] = "cpus=16-99,hostnodes=1";
  auto r = resolve_host_topology(h, nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->source, topology_source::predicted);
  ASSERT_TRUE(r->warning);
  EXPECT_NE(r->warning->find("topology VM 9901: numa1"), std::string::npos) << *r->warning;
}

TEST(ResolveTopology, TheFileEntryAppliesOnTopOfTheTopologyVm) {
  node_settings_file f;
  f.origin = "NODE_SETTING_FILE f.json";
  host_settings star;
  star.region = "region-1";
  star.host = "*";
  star.reserved_cpus = located<std::string>{"0,16", 4};
  star.reserved_memory_bytes = located<std::int64_t>{2 * gib, 5};
  f.hosts = {star};
  auto h = pve1();
  h.topology_vm = capacity_vm();
  auto r = resolve_host_topology(h, &f);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->source, topology_source::topology_vm);
  EXPECT_TRUE(r->from_file);
  EXPECT_EQ(r->topology.reserved_cpus.to_string(), "0,16");
  EXPECT_EQ(r->topology.reserved_memory_bytes, 2 * gib);
  EXPECT_EQ(r->topology.numa_nodes[1].cpus.to_string(), "8-15,24-31");

  auto other_region = h;
  other_region.region = "region-2";
  auto r2 = resolve_host_topology(other_region, &f);
  ASSERT_TRUE(r2.ok());
  EXPECT_FALSE(r2->from_file);
}

TEST(ResolveTopology, ABadFileEntryIsAnErrorForTheHost) {
  node_settings_file f;
  f.origin = "NODE_SETTING_FILE f.json";
  host_settings entry;
  entry.region = "region-1";
  entry.host = "pve1";
  entry.reserved_cpus = located<std::string>{"40", 7};
  f.hosts = {entry};
  auto r = resolve_host_topology(pve1(), &f);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("NODE_SETTING_FILE f.json line 7: region-1/pve1: reservedcpus"),
            std::string::npos)
      << r.error().message;
}

}  // namespace
}  // namespace kp::topology
