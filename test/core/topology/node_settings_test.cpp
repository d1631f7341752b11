#include "core/topology/node_settings.hpp"

#include <gtest/gtest.h>

namespace kp::topology {
namespace {

constexpr std::int64_t gib = std::int64_t{1} << 30;

// A predicted 1-socket, 16-core, 2-thread host with 64 GiB in one NUMA node.
placement::host_topology predicted() {
  return placement::predict_topology(1, 32, 16, 64 * gib);
}

host_settings entry(std::string host) {
  host_settings h;
  h.region = "region-1";
  h.host = std::move(host);
  h.line = 3;
  return h;
}

numa_node_setting numa(std::string id, std::string cpus, std::int64_t memory = 0) {
  numa_node_setting n;
  n.id = std::move(id);
  n.line = 10;
  n.cpus = located<std::string>{std::move(cpus), 11};
  if (memory != 0) n.memory_bytes = located<std::int64_t>{memory, 12};
  return n;
}

TEST(NodeSettings, AHostEntryWinsOverTheRegionWildcardAndOtherRegionsAreIgnored) {
  node_settings_file f;
  f.hosts = {entry("*"), entry("pve1")};
  f.hosts[1].reserved_memory_bytes = located<std::int64_t>{2 * gib, 4};
  EXPECT_EQ(find_host_settings(f, "region-1", "pve1"), &f.hosts[1]);
  EXPECT_EQ(find_host_settings(f, "region-1", "pve2"), &f.hosts[0]);
  EXPECT_EQ(find_host_settings(f, "region-2", "pve1"), nullptr);
}

TEST(NodeSettings, NumaNodesFromTheFileReplaceThePredictionAndCoresAreDerived) {
  auto h = entry("pve1");
  h.sockets = located<std::int64_t>{2, 4};
  h.threads = located<std::int64_t>{2, 5};
  h.numa_nodes = {numa("1", "8-15,24-31", 30 * gib), numa("0", "0-7,16-23")};
  auto t = apply_host_settings(predicted(), h, "f.json");
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->numa_nodes.size(), 2u);
  EXPECT_EQ(t->numa_nodes[0].id, 0) << "sorted by id";
  EXPECT_EQ(t->numa_nodes[0].cpus.to_string(), "0-7,16-23");
  EXPECT_EQ(t->numa_nodes[0].memory_bytes, 32 * gib) << "missing memory: discovered total / 2";
  EXPECT_EQ(t->numa_nodes[1].cpus.to_string(), "8-15,24-31");
  EXPECT_EQ(t->numa_nodes[1].memory_bytes, 30 * gib);
  EXPECT_EQ(t->sockets, 2);
  EXPECT_EQ(t->threads_per_core, 2);
  EXPECT_EQ(t->cores_per_socket, 8);
  EXPECT_EQ(t->physical_core_of(24), 8);
}

TEST(NodeSettings, ZeroOrAbsentCountsKeepWhatWasDiscovered) {
  auto h = entry("pve1");
  h.sockets = located<std::int64_t>{0, 4};
  h.reserved_cpus = located<std::string>{"0,16", 6};
  h.reserved_memory_bytes = located<std::int64_t>{4 * gib, 7};
  auto t = apply_host_settings(predicted(), h, "f.json");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->sockets, 1);
  EXPECT_EQ(t->cores_per_socket, 16);
  EXPECT_EQ(t->numa_nodes.size(), 1u);
  EXPECT_EQ(t->reserved_cpus.to_string(), "0,16");
  EXPECT_EQ(t->reserved_memory_bytes, 4 * gib);
}

TEST(NodeSettings, AnExplicitZeroReservedMemoryReservesNothing) {
  auto h = entry("pve1");
  h.reserved_memory_bytes = located<std::int64_t>{0, 7};
  auto t = apply_host_settings(predicted(), h, "f.json");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->reserved_memory_bytes, 0);
}

TEST(NodeSettings, AHostWithoutAnEntryKeepsItsDiscoveredTopology) {
  node_settings_file f;
  f.hosts = {entry("pve9")};
  f.hosts[0].sockets = located<std::int64_t>{2, 4};
  auto t = topology_for_host(f, "region-1", "pve1", predicted());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->sockets, 1);
}

struct bad_case {
  const char* name;
  void (*edit)(host_settings&);
  const char* expected;
};

class NodeSettingsRejects : public ::testing::TestWithParam<bad_case> {};

TEST_P(NodeSettingsRejects, ABadFieldWithAnErrorNamingFileLineHostAndField) {
  node_settings_file f;
  f.origin = "NODE_SETTING_FILE f.json";
  f.hosts = {entry("pve1")};
  f.hosts[0].numa_nodes = {numa("0", "0-15"), numa("1", "16-31")};
  GetParam().edit(f.hosts[0]);
  auto v = validate_node_settings(f);
  auto t = topology_for_host(f, "region-1", "pve1", predicted());
  ASSERT_FALSE(v.ok() && t.ok()) << GetParam().name;
  const auto& e = v.ok() ? t.error() : v.error();
  EXPECT_EQ(e.code, "invalid_node_settings");
  EXPECT_EQ(e.message.rfind("NODE_SETTING_FILE f.json line ", 0), 0u) << e.message;
  EXPECT_NE(e.message.find("region-1/pve1: "), std::string::npos) << e.message;
  EXPECT_NE(e.message.find(GetParam().expected), std::string::npos) << e.message;
}

INSTANTIATE_TEST_SUITE_P(
    Fields, NodeSettingsRejects,
    ::testing::Values(
        bad_case{"sockets",
                 [](host_settings& h) {
                   h.sockets = located<std::int64_t>{-1, 4};
                 },
                 "line 4: region-1/pve1: sockets -1: must be 0 to 64"},
        bad_case{"threads",
                 [](host_settings& h) {
                   h.threads = located<std::int64_t>{16, 5};
                 },
                 "threads 16: must be 0 to 8"},
        bad_case{"cores",
                 [](host_settings& h) {
                   h.cores = located<std::int64_t>{99999, 5};
                 },
                 "cores 99999"},
        bad_case{"uncorecaches",
                 [](host_settings& h) {
                   h.uncore_caches = located<std::int64_t>{-2, 5};
                 },
                 "uncorecaches -2"},
        bad_case{"numa id", [](host_settings& h) { h.numa_nodes[1].id = "one"; },
                 "line 10: region-1/pve1: nodes key \"one\""},
        bad_case{"numa id twice", [](host_settings& h) { h.numa_nodes[1].id = "0"; },
                 "nodes.0: NUMA node listed twice"},
        bad_case{"cpus garbage", [](host_settings& h) { h.numa_nodes[1].cpus->value = "16-x"; },
                 "line 11: region-1/pve1: nodes.1.cpus \"16-x\": invalid CPU id"},
        bad_case{"cpus descending", [](host_settings& h) { h.numa_nodes[1].cpus->value = "31-16"; },
                 "descending range"},
        bad_case{"cpus missing", [](host_settings& h) { h.numa_nodes[1].cpus.reset(); },
                 "nodes.1.cpus: missing"},
        bad_case{"cpus overlap", [](host_settings& h) { h.numa_nodes[1].cpus->value = "15-31"; },
                 "CPUs 15 already belong to another NUMA node"},
        bad_case{"memsize",
                 [](host_settings& h) {
                   h.numa_nodes[0].memory_bytes = located<std::int64_t>{-5, 12};
                 },
                 "line 12: region-1/pve1: nodes.0.memsize -5"},
        bad_case{"reservedcpus garbage",
                 [](host_settings& h) {
                   h.reserved_cpus = located<std::string>{"a,b", 8};
                 },
                 "line 8: region-1/pve1: reservedcpus \"a,b\""},
        bad_case{"reservedcpus outside",
                 [](host_settings& h) {
                   h.reserved_cpus = located<std::string>{"0,40", 8};
                 },
                 "reservedcpus: CPUs 40 are in none of the listed NUMA nodes"},
        bad_case{"reservedmemory",
                 [](host_settings& h) {
                   h.reserved_memory_bytes = located<std::int64_t>{-1, 9};
                 },
                 "reservedmemory -1: must not be negative"},
        bad_case{"shape",
                 [](host_settings& h) {
                   h.sockets = located<std::int64_t>{2, 4};
                   h.cores = located<std::int64_t>{4, 5};
                   h.threads = located<std::int64_t>{2, 6};
                 },
                 "sockets x cores x threads = 16 CPUs, but the NUMA nodes list 32"},
        bad_case{"indivisible",
                 [](host_settings& h) {
                   h.sockets = located<std::int64_t>{3, 4};
                 },
                 "32 CPUs do not divide into 3 sockets x 2 threads; set \"cores\""}),
    [](const auto& info) {
      std::string n = info.param.name;
      for (auto& c : n) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return n;
    });

TEST(NodeSettings, ReservedCpusOutsideTheHostAreRefusedWhenTheFileListsNoNumaNodes) {
  auto h = entry("pve1");
  h.reserved_cpus = located<std::string>{"0,64", 8};
  auto t = apply_host_settings(predicted(), h, "NODE_SETTING_FILE f.json");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("reservedcpus: CPUs 64 do not exist on the host (0-31)"),
            std::string::npos)
      << t.error().message;
}

TEST(NodeSettings, AHostListedTwiceInARegionIsRefused) {
  node_settings_file f;
  f.hosts = {entry("pve1"), entry("pve1")};
  auto v = validate_node_settings(f);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message.find("host listed twice"), std::string::npos);
}

}  // namespace
}  // namespace kp::topology
