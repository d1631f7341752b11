#include "core/placement/strategy.hpp"

#include <gtest/gtest.h>

#include <set>

#include "core/placement/place_vm.hpp"
#include "test/core/placement/fixtures.hpp"

namespace kp::placement {
namespace {

using testing::gib;
using testing::make_host;

std::vector<host_state> three_hosts() {
  return {make_host("pve1"), make_host("pve2"), make_host("pve3")};
}

std::string place(std::vector<host_state>& hosts, strategy s, placement_cursor& cursor,
                  vm_request vm = {2, 4 * gib}, host_filter filter = {}) {
  static int vmid = 1000;
  auto d = place_vm(hosts, ++vmid, vm, filter, s, cpu_policy::simple, cursor);
  return d.ok() ? hosts[d->host].name() : "none: " + d.error().message;
}

TEST(Strategy, ParsesCrdAndKproximateNames) {
  EXPECT_EQ(*parse_strategy("Balanced"), strategy::balanced);
  EXPECT_EQ(*parse_strategy("balanced"), strategy::balanced);
  EXPECT_EQ(*parse_strategy("max-memory"), strategy::max_memory);
  EXPECT_EQ(*parse_strategy("RoundRobin"), strategy::round_robin);
  EXPECT_EQ(*parse_strategy("Pack"), strategy::pack);
  auto bad = parse_strategy("Fastest");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("Fastest"), std::string::npos);
  EXPECT_EQ(to_string(strategy::max_cpu), "MaxCPU");
}

TEST(Strategy, BalancedPutsEachVmOnTheLeastCommittedHost) {
  auto hosts = three_hosts();
  placement_cursor c;
  EXPECT_EQ(place(hosts, strategy::balanced, c), "pve1");
  EXPECT_EQ(place(hosts, strategy::balanced, c), "pve2");
  EXPECT_EQ(place(hosts, strategy::balanced, c), "pve3");
  EXPECT_EQ(place(hosts, strategy::balanced, c), "pve1");
}

TEST(Strategy, PackFillsOneHostBeforeUsingTheNext) {
  auto hosts = three_hosts();
  placement_cursor c;
  for (int i = 0; i < 16; ++i) EXPECT_EQ(place(hosts, strategy::pack, c), "pve1") << i;
  EXPECT_EQ(place(hosts, strategy::pack, c), "pve2") << "pve1 has no CPUs left";
}

TEST(Strategy, SpreadPrefersHostsWithoutManagedVmsThenMostFreeMemory) {
  auto hosts = three_hosts();
  hosts[0].add({1, 2, 8 * gib, {}, {}, true});
  hosts[1].add({2, 2, 16 * gib, {}, {}, true});
  placement_cursor c;
  EXPECT_EQ(place(hosts, strategy::spread, c), "pve3");
  EXPECT_EQ(place(hosts, strategy::spread, c, {2, 1 * gib}), "pve3")
      << "every host has a VM now: most free memory wins (pve3 used 4 GiB)";
}

TEST(Strategy, MaxMemoryAndMaxCpuChooseTheMostRoom) {
  auto hosts = three_hosts();
  hosts[0].add({1, 1, 32 * gib, {}, {}, false});
  hosts[1].add({2, 12, 1 * gib, {}, {}, false});
  hosts[2].add({3, 2, 8 * gib, {}, {}, false});
  placement_cursor c;
  EXPECT_EQ(place(hosts, strategy::max_memory, c, {1, gib}), "pve2");
  hosts = three_hosts();
  hosts[0].add({1, 1, 32 * gib, {}, {}, false});
  hosts[1].add({2, 12, 1 * gib, {}, {}, false});
  hosts[2].add({3, 2, 8 * gib, {}, {}, false});
  EXPECT_EQ(place(hosts, strategy::max_cpu, c, {1, gib}), "pve1");
}

TEST(Strategy, RoundRobinRotatesByName) {
  auto hosts = three_hosts();
  placement_cursor c;
  EXPECT_EQ(place(hosts, strategy::round_robin, c), "pve1");
  EXPECT_EQ(place(hosts, strategy::round_robin, c), "pve2");
  EXPECT_EQ(place(hosts, strategy::round_robin, c), "pve3");
  EXPECT_EQ(place(hosts, strategy::round_robin, c), "pve1");
}

TEST(Strategy, AvailabilityFirstIsRandomButReproducibleFromTheSeed) {
  std::set<std::string> seen;
  std::vector<std::string> first_run, second_run;
  for (auto* run : {&first_run, &second_run}) {
    auto hosts = three_hosts();
    placement_cursor c;
    c.random_state = 42;
    for (int i = 0; i < 12; ++i)
      run->push_back(place(hosts, strategy::availability_first, c, {1, gib}));
  }
  EXPECT_EQ(first_run, second_run);
  seen.insert(first_run.begin(), first_run.end());
  EXPECT_GE(seen.size(), 2u) << "twelve draws over three hosts use more than one";
}

TEST(Strategy, OfflineAndExcludedHostsAreNeverChosen) {
  for (auto s : {strategy::balanced, strategy::availability_first, strategy::spread,
                 strategy::max_memory, strategy::max_cpu, strategy::round_robin, strategy::pack}) {
    auto hosts = three_hosts();
    hosts[0].online = false;
    host_filter filter;
    filter.excluded_hosts = {"pve2"};
    placement_cursor c;
    for (int i = 0; i < 5; ++i)
      EXPECT_EQ(place(hosts, s, c, {1, gib}, filter), "pve3") << to_string(s);
  }
}

TEST(Strategy, MinimumFreeRoomIsKeptAfterPlacement) {
  auto hosts = three_hosts();
  host_filter filter;
  filter.min_free_cpu = 28;  // 32 CPUs: only a VM of at most 4 vCPUs leaves 28 free
  placement_cursor c;
  EXPECT_EQ(place(hosts, strategy::pack, c, {4, gib}, filter), "pve1");
  EXPECT_EQ(place(hosts, strategy::pack, c, {4, gib}, filter), "pve2");
  filter.min_free_cpu = 0;
  filter.min_free_memory = 120 * gib;  // 127 GiB usable: at most 7 GiB may be used
  hosts = three_hosts();
  EXPECT_EQ(place(hosts, strategy::pack, c, {1, 8 * gib}, filter).substr(0, 5), "none:");
}

TEST(Strategy, WhenNothingFitsTheReasonNamesEachHost) {
  auto hosts = three_hosts();
  hosts[0].online = false;
  hosts[1].add({1, 31, gib, {}, {}, false});
  host_filter filter;
  filter.excluded_hosts = {"pve3"};
  placement_cursor c;
  auto reason = place(hosts, strategy::balanced, c, {4, gib}, filter);
  EXPECT_NE(reason.find("pve1: offline"), std::string::npos) << reason;
  EXPECT_NE(reason.find("pve2: 1 free CPUs"), std::string::npos) << reason;
  EXPECT_NE(reason.find("pve3: excluded"), std::string::npos) << reason;
}

TEST(Strategy, AllowedHostsRestrictTheChoice) {
  auto hosts = three_hosts();
  host_filter filter;
  filter.allowed_hosts = {"pve2"};
  placement_cursor c;
  EXPECT_EQ(place(hosts, strategy::balanced, c, {1, gib}, filter), "pve2");
  EXPECT_EQ(place(hosts, strategy::balanced, c, {1, gib}, filter), "pve2");
}

}  // namespace
}  // namespace kp::placement
