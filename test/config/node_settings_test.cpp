#include "config/node_settings_file.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "core/topology/node_settings.hpp"

namespace kp::config {
namespace {

constexpr std::int64_t gib = std::int64_t{1} << 30;

// The Go provider's documented shape, with its own spellings: "memsize" in the code, "memory"
// in the docs, "threads" inside a NUMA node in its sample file.
const char* go_sample = R"({
  "region-1": {
    "rnd-2": {
      "sockets": 2,
      "threads": 2,
      "uncorecaches": 2,
      "nodes": {
        "0": {"cpus": "0-7,16-23", "threads": 2, "memsize": 33245628416},
        "1": {"cpus": "8-15,24-31", "memory": 33245628416}
      },
      "reservedcpus": [],
      "reservedmemory": 1073741824
    },
    "rnd-3": {"reservedcpus": [0, 4], "reservedmemory": 4294967296},
    "*": {"reservedcpus": [], "reservedmemory": 1073741824}
  },
  "region-2": {
    "node3": {"reservedcpus": [0, 1], "reservedmemory": 1073741824}
  }
}
)";

TEST(NodeSettingsFile, TheGoProvidersSampleFileIsReadWithLinesForEveryValue) {
  auto f = parse_node_settings(go_sample, "nodes.json");
  ASSERT_TRUE(f.ok()) << f.error().message;
  ASSERT_EQ(f->hosts.size(), 4u);
  const auto* h = topology::find_host_settings(*f, "region-1", "rnd-2");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->line, 3);
  ASSERT_TRUE(h->sockets);
  EXPECT_EQ(h->sockets->value, 2);
  EXPECT_EQ(h->sockets->line, 4);
  ASSERT_EQ(h->numa_nodes.size(), 2u);
  EXPECT_EQ(h->numa_nodes[0].cpus->value, "0-7,16-23");
  EXPECT_EQ(h->numa_nodes[0].cpus->line, 8);
  EXPECT_EQ(h->numa_nodes[1].memory_bytes->value, 33245628416);
  EXPECT_EQ(h->reserved_cpus->value, "");
  EXPECT_EQ(topology::find_host_settings(*f, "region-1", "rnd-3")->reserved_cpus->value, "0,4");
  EXPECT_EQ(topology::find_host_settings(*f, "region-1", "other")->host, "*");
  EXPECT_EQ(topology::find_host_settings(*f, "region-2", "node3")->reserved_memory_bytes->value,
            gib);

  auto t = topology::topology_for_host(*f, "region-1", "rnd-2",
                                       placement::predict_topology(1, 32, 16, 64 * gib));
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->sockets, 2);
  EXPECT_EQ(t->cores_per_socket, 8);
  EXPECT_EQ(t->threads_per_core, 2);
  EXPECT_EQ(t->numa_nodes[1].cpus.to_string(), "8-15,24-31");
  EXPECT_EQ(t->reserved_memory_bytes, gib);
}

TEST(NodeSettingsFile, YamlWithTheSameShapeAndACpuListStringAreAccepted) {
  auto f = parse_node_settings(
      "region-1:\n"
      "  pve1:\n"
      "    nodes:\n"
      "      0: {cpus: \"0-3,8-11\", memsize: 8589934592}\n"
      "      1: {cpus: \"4-7,12-15\", memsize: 8589934592}\n"
      "    reservedcpus: \"0,8\"\n",
      "nodes.yaml");
  ASSERT_TRUE(f.ok()) << f.error().message;
  auto t = topology::topology_for_host(*f, "region-1", "pve1",
                                       placement::predict_topology(1, 16, 8, 16 * gib));
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->numa_nodes.size(), 2u);
  EXPECT_EQ(t->reserved_cpus.to_string(), "0,8");
}

TEST(NodeSettingsFile, JsonIndentedWithTabsIsRead) {
  auto f = parse_node_settings(
      "{\n\t\"region-1\": {\n\t\t\"pve1\": {\n\t\t\t\"reservedcpus\": [0, 1],\n"
      "\t\t\t\"reservedmemory\": 1073741824\n\t\t}\n\t}\n}\n",
      "tabs.json");
  ASSERT_TRUE(f.ok()) << f.error().message;
  ASSERT_EQ(f->hosts.size(), 1u);
  EXPECT_EQ(f->hosts[0].reserved_cpus->value, "0,1");
  EXPECT_EQ(f->hosts[0].reserved_cpus->line, 4);
}

TEST(NodeSettingsFile, AnEmptyFileOrNoPathOverridesNothing) {
  auto empty = parse_node_settings("", "x");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->hosts.empty());
  auto none = load_node_settings_file("");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->hosts.empty());
}

TEST(NodeSettingsFile, AMissingFileIsAnUnreadableErrorNamingThePath) {
  auto f = load_node_settings_file("/nonexistent/nodes.json");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code, "unreadable");
  EXPECT_NE(f.error().message.find("NODE_SETTING_FILE /nonexistent/nodes.json"), std::string::npos);
}

TEST(NodeSettingsFile, AFileOnDiskIsLoaded) {
  std::string path = ::testing::TempDir() + "node_settings_test.json";
  {
    std::ofstream out(path);
    out << go_sample;
  }
  auto f = load_node_settings_file(path);
  std::remove(path.c_str());
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->origin, "NODE_SETTING_FILE " + path);
}

struct bad_case {
  const char* name;
  const char* text;
  const char* expected;
};

class NodeSettingsFileRejects : public ::testing::TestWithParam<bad_case> {};

TEST_P(NodeSettingsFileRejects, WithTheLineRegionHostAndField) {
  auto f = parse_node_settings(GetParam().text, "f.json");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code, "invalid_node_settings");
  EXPECT_EQ(f.error().message.rfind("NODE_SETTING_FILE f.json", 0), 0u) << f.error().message;
  EXPECT_NE(f.error().message.find(GetParam().expected), std::string::npos) << f.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, NodeSettingsFileRejects,
    ::testing::Values(
        bad_case{"syntax", "{\"r\": {\"h\": {\"sockets\": 2,}}\n", "not valid JSON/YAML"},
        bad_case{"top level list", "[1, 2]\n", "line 1: expected {\"<region>\""},
        bad_case{"region not a map", "{\"r\": 5}\n", "line 1: r: expected a mapping of hosts"},
        bad_case{"unknown key", "{\"r\": {\"h\": {\n  \"socket\": 2}}}\n",
                 "line 2: r/h: unknown key \"socket\""},
        bad_case{"sockets text", "{\"r\": {\"h\": {\n\n  \"sockets\": \"two\"}}}\n",
                 "line 3: r/h: sockets \"two\": expected a whole number"},
        bad_case{"memsize unit",
                 "{\"r\": {\"h\": {\"nodes\": {\"0\": {\"cpus\": \"0-3\",\n  \"memsize\": "
                 "\"8Gi\"}}}}}\n",
                 "line 2: r/h: nodes.0.memsize \"8Gi\": expected a whole number of bytes"},
        bad_case{"reservedmemory float", "{\"r\": {\"h\": {\"reservedmemory\": 1.5}}}\n",
                 "reservedmemory \"1.5\""},
        bad_case{"numa unknown key", "{\"r\": {\"h\": {\"nodes\": {\"0\": {\"cpu\": \"0-3\"}}}}}\n",
                 "nodes.0: unknown key \"cpu\""},
        bad_case{"numa both memories",
                 "{\"r\": {\"h\": {\"nodes\": {\"0\": {\"cpus\": \"0\", \"memsize\": 1, "
                 "\"memory\": 1}}}}}\n",
                 "both memsize and memory"},
        bad_case{"cpus not a list",
                 "{\"r\": {\"h\": {\"nodes\": {\n  \"0\": {\n    \"cpus\": \"0-7,16-2x\"}}}}}\n",
                 "line 3: r/h: nodes.0.cpus \"0-7,16-2x\": invalid CPU id \"2x\""},
        bad_case{"cpus overlap",
                 "{\"r\": {\"h\": {\"nodes\": {\"0\": {\"cpus\": \"0-7\"},\n  \"1\": {\"cpus\": "
                 "\"7-15\"}}}}}\n",
                 "line 2: r/h: nodes.1.cpus \"7-15\": CPUs 7 already belong"},
        bad_case{"reservedcpus negative", "{\"r\": {\"h\": {\"reservedcpus\": [0, -1]}}}\n",
                 "reservedcpus: CPU ids are not negative"},
        bad_case{"reservedcpus map", "{\"r\": {\"h\": {\"reservedcpus\": {\"a\": 1}}}}\n",
                 "reservedcpus: expected a list"},
        bad_case{"numa id", "{\"r\": {\"h\": {\"nodes\": {\"zero\": {\"cpus\": \"0\"}}}}}\n",
                 "nodes key \"zero\""},
        bad_case{"threads range", "{\"r\": {\"h\": {\"threads\": 64}}}\n",
                 "r/h: threads 64: must be 0 to 8"}),
    [](const auto& info) {
      std::string n = info.param.name;
      for (auto& c : n) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return n;
    });

}  // namespace
}  // namespace kp::config
