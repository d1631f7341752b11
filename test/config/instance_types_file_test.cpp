// INSTANCE_TYPES_FILE: the Go provider's JSON read with Boost.JSON into core's instance types;
// every malformed input is an error naming the item or type and the field.
#include "config/instance_types_file.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace kp::config {
namespace {

constexpr std::int64_t Mi = 1024LL * 1024 * 1000;  // milli-units of one MiB
constexpr std::int64_t Gi = 1024 * Mi;

TEST(InstanceTypesFile, TheGoProviderFormatIsAccepted) {
  const char* json = R"([
    {"name": "c1.1VCPU-2GB",
     "capacity": {"cpu": "1", "ephemeral-storage": "30Gi", "memory": "2Gi", "pods": "64"},
     "overhead": {"KubeReserved": {"cpu": "20m", "memory": "384Mi"}, "SystemReserved": null,
                  "EvictionThreshold": null}},
    {"name": "x1.2VCPU-32GB", "capacitytype": "spot",
     "capacity": {"cpu": 2, "memory": "32Gi", "hugepages-1Gi": "8Gi"}, "offerings": []}
  ])";
  auto r = parse_instance_types_file(json);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].overhead.kube_reserved.milli("memory"), 384 * Mi);
  EXPECT_EQ((*r)[0].allocatable().milli("cpu"), 980);
  EXPECT_EQ((*r)[1].family, "x1");
  EXPECT_EQ((*r)[1].capacity_type, "spot");
  EXPECT_EQ((*r)[1].capacity.milli("pods"), 110000);
  // Hugepages are not available to pods as memory.
  EXPECT_EQ((*r)[1].allocatable().milli("memory"), 24 * Gi);
}

TEST(InstanceTypesFile, MalformedFilesAreErrorsNamingTheProblem) {
  for (const char* bad :
       {"", "{", "{}", "[1]", "[{\"capacity\": {}}]",
        "[{\"name\": \"a\", \"capacity\": {\"cpu\": \"x\"}}]",
        "[{\"name\": \"a\", \"capacity\": {\"cpu\": \"1\"}}]", "[{\"name\":\"a\"}] trailing",
        "[\"\\u12\"]",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]"
        "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
        "[{\"name\": \"a\", \"capacity\": {\"cpu\": \"1\", \"memory\": \"1Gi\"}},"
        " {\"name\": \"a\", \"capacity\": {\"cpu\": \"1\", \"memory\": \"1Gi\"}}]"}) {
    auto r = parse_instance_types_file(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.error().code, "invalid_instance_types");
    }
  }
  auto r = parse_instance_types_file(
      "[{\"name\": \"a\", \"capacity\": {\"cpu\": \"x\", \"memory\": \"1Gi\"}}]");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("instance type a"), std::string::npos);
}

TEST(InstanceTypesFile, ErrorsNameTheTypeAndTheField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"([{"name": "a", "capacity": {"cpu": true, "memory": "1Gi"}}])",
       "instance type a capacity.cpu must be a quantity"},
      {R"([{"name": "a", "capacity": [1]}])",
       "instance type a capacity must be an object of quantities"},
      {R"([{"name": "a", "capacity": {"cpu": "1", "memory": "1Gi"}, "overhead": 3}])",
       "instance type a overhead must be an object"},
      {R"([{"name": "a", "capacity": {"cpu": "1", "memory": "1Gi"},
            "overhead": {"SystemReserved": {"memory": "lots"}}}])",
       "instance type a overhead.SystemReserved.memory: "},
      {R"([{"name": "a", "capacity": {"cpu": "1", "memory": "1Gi"}, "capacitytype": 1}])",
       "instance type a capacitytype must be a string"},
      {R"([{"name": "a", "capacity": {"cpu": "1", "memory": "1Gi"}}, 7])",
       "item 1 must be an object"},
      {R"([{"name": 5}])", "item 0 has no name"},
      {"[1,", "instance types file is not JSON: "},
  };
  for (const auto& [json, message] : cases) {
    auto r = parse_instance_types_file(json);
    ASSERT_FALSE(r.ok()) << json;
    EXPECT_EQ(r.error().code, "invalid_instance_types") << json;
    EXPECT_EQ(r.error().message.rfind(message, 0), 0u) << r.error().message;
  }
}

TEST(InstanceTypesFile, ReservationsAndHostOverridesAreRead) {
  auto r = parse_instance_types_file(R"([
    {"name": "r1.2VCPU-4GB", "capacity": {"cpu": "2", "memory": "4Gi"},
     "capacitytype": "reserved",
     "reservations": [{"region": "pve", "count": 2}, {"id": "db", "host": "pve2", "count": 1}],
     "hosts": {"pve2": {"capacity": {"hugepages-2Mi": "1Gi"},
                        "overhead": {"KubeReserved": {"memory": "512Mi"}}}}}
  ])");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto& t = (*r)[0];
  EXPECT_EQ(t.capacity_type, "reserved");
  ASSERT_EQ(t.reservations.size(), 2u);
  EXPECT_EQ(t.reservations[0].id, "r1.2VCPU-4GB-pve");
  EXPECT_EQ(t.reservations[0].count, 2);
  EXPECT_EQ(t.reservations[1].id, "db");
  EXPECT_EQ(t.reservations[1].host, "pve2");
  ASSERT_EQ(t.host_overrides.count("pve2"), 1u);
  EXPECT_EQ(t.host_overrides.at("pve2").capacity.milli("hugepages-2Mi"), Gi);
  ASSERT_TRUE(t.host_overrides.at("pve2").overhead.has_value());
  EXPECT_EQ(t.host_overrides.at("pve2").overhead->kube_reserved.milli("memory"), 512 * Mi);
}

TEST(InstanceTypesFile, MalformedReservationsAndHostOverridesNameTheTypeAndTheField) {
  const std::string head = R"([{"name": "r", "capacity": {"cpu": "1", "memory": "1Gi"}, )";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("capacitytype": "reserved"}])",
       "instance type r capacitytype \"reserved\" needs reservations"},
      {R"("capacitytype": "reserved", "reservations": {}}])",
       "instance type r reservations must be an array"},
      {R"("capacitytype": "reserved", "reservations": [{"count": "2"}]}])",
       "instance type r reservations[0].count must be a whole number"},
      {R"("capacitytype": "reserved", "reservations": [{"region": "pve"}]}])",
       "instance type r reservations[0].count is missing"},
      {R"("capacitytype": "reserved", "reservations": [{"count": 1, "zone": "a"}]}])",
       "instance type r reservations[0] has an unknown field \"zone\""},
      {R"("capacitytype": "reserved", "reservations": [{"count": -1}]}])",
       "instance type r reservations[0].count must be a positive number"},
      {R"("reservations": [{"count": 1}]}])",
       "instance type r reservations need capacitytype \"reserved\""},
      {R"("capacitytype": "dedicated"}])", "instance type r capacitytype \"dedicated\" is not"},
      {R"("hosts": []}])", "instance type r hosts must be an object by host name"},
      {R"("hosts": {"pve2": {"memory": "1Gi"}}}])",
       "instance type r hosts.pve2 has an unknown field \"memory\""},
      {R"("hosts": {"pve2": {"capacity": {"hugepages-2Mi": "many"}}}}])",
       "instance type r hosts.pve2 capacity.hugepages-2Mi: "},
      {R"("hosts": {"pve2": {"overhead": {"KubeReserved": 1}}}}])",
       "instance type r hosts.pve2 overhead.KubeReserved must be an object"},
  };
  for (const auto& [tail, message] : cases) {
    auto r = parse_instance_types_file(head + tail);
    ASSERT_FALSE(r.ok()) << tail;
    EXPECT_EQ(r.error().code, "invalid_instance_types") << tail;
    EXPECT_EQ(r.error().message.rfind(message, 0), 0u) << r.error().message;
  }
}

TEST(InstanceTypesFile, NumbersAreQuantitiesAsTheyAreSpelt) {
  auto r = parse_instance_types_file(
      R"([{"name": "a", "capacity": {"cpu": 1.5, "memory": 1073741824, "pods": 20}}])");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)[0].capacity.milli("cpu"), 1500);
  EXPECT_EQ((*r)[0].capacity.milli("memory"), Gi);
  EXPECT_EQ((*r)[0].capacity.milli("pods"), 20000);
  EXPECT_EQ((*r)[0].vm_cpus, 2);
}

TEST(LoadInstanceTypes, TheBuiltInListWhenNoFileIsSetWithTheMemoryOverheadTakenOff) {
  settings s;
  s.vm_memory_overhead_percent = 0;
  auto plain = load_instance_types(s);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->size(), instance_types::builtin_instance_types().size());
  s.vm_memory_overhead_percent = 0.075;
  auto reduced = load_instance_types(s);
  ASSERT_TRUE(reduced.ok());
  EXPECT_LT((*reduced)[0].capacity.milli("memory"), (*plain)[0].capacity.milli("memory"));
}

TEST(LoadInstanceTypes, AFileReplacesTheBuiltInListAndErrorsNameTheSetting) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("kp-instance-types-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto good = (dir / "types.json").string();
  std::ofstream(good)
      << R"([{"name": "kp1.2VCPU-2GB", "capacity": {"cpu": "2", "memory": "2Gi"}}])";
  const auto bad = (dir / "bad.json").string();
  std::ofstream(bad) << R"([{"name": "kp1", "capacity": {"cpu": "two", "memory": "2Gi"}}])";
  settings s;
  s.vm_memory_overhead_percent = 0;
  s.instance_types_file = good;
  auto r = load_instance_types(s);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].name, "kp1.2VCPU-2GB");
  s.instance_types_file = bad;
  r = load_instance_types(s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.error().message.rfind("INSTANCE_TYPES_FILE " + bad + ": instance type kp1 capacity.cpu", 0),
      0u)
      << r.error().message;
  s.instance_types_file = (dir / "missing.json").string();
  r = load_instance_types(s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("INSTANCE_TYPES_FILE " + s.instance_types_file + ": ", 0), 0u)
      << r.error().message;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kp::config
