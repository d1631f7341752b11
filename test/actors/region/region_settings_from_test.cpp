#include "actors/region/region_settings_from.hpp"

#include <gtest/gtest.h>

#include "config/node_settings_file.hpp"

namespace kp::actors::region {
namespace {

using namespace std::chrono_literals;

config::proxmox_cluster token_cluster() {
  config::proxmox_cluster c;
  c.url = "https://pve:8006/api2/json";
  c.region = "region-1";
  c.token_id = "kubernetes@pve!karpenter";
  return c;
}

TEST(RegionSettingsFrom, OperatorSettingsReachTheRegionActor) {
  config::settings s;
  s.proxmox_vmid = 30000;
  s.proxmox_max_inflight = 3;
  s.proxmox_clone_timeout = 7min;
  s.proxmox_config_timeout = 1min;
  s.proxmox_delete_timeout = 2min;
  s.proxmox_start_timeout = 45s;
  s.proxmox_stop_timeout = 90s;
  s.proxmox_task_poll_interval = 250ms;
  auto r = region_settings_from(s, token_cluster(), "uid-1234");
  EXPECT_EQ(r.region, "region-1");
  EXPECT_EQ(r.cluster_name, "uid-1234");
  EXPECT_EQ(r.first_vmid, 30000u);
  EXPECT_EQ(r.max_in_flight, 3u);
  EXPECT_EQ(r.clone_wait.timeout, 7min) << "the longest of clone, config and delete";
  EXPECT_EQ(r.start_wait.timeout, 90s) << "the longest of start and stop";
  EXPECT_EQ(r.clone_wait.initial_interval, 100ms) << "quick tasks are seen done quickly";
  EXPECT_EQ(r.clone_wait.max_interval, 250ms) << "the poll interval is the steady rate";
}

TEST(RegionSettingsFrom, OnlyRootWithAPasswordMaySetAffinity) {
  config::settings s;
  EXPECT_FALSE(region_settings_from(s, token_cluster(), "c").can_set_affinity);
  config::proxmox_cluster root;
  root.region = "r";
  root.username = "root@pam";
  EXPECT_TRUE(region_settings_from(s, root, "c").can_set_affinity);
  config::proxmox_cluster other = root;
  other.username = "karpenter@pve";
  EXPECT_FALSE(region_settings_from(s, other, "c").can_set_affinity);
}

TEST(RegionSettingsFrom, NonsenseNumbersAreClampedToWorkingValues) {
  config::settings s;
  s.proxmox_max_inflight = 0;
  s.proxmox_vmid = 5;
  s.proxmox_task_poll_interval = 0s;
  auto r = region_settings_from(s, token_cluster(), "c");
  EXPECT_EQ(r.max_in_flight, 1u);
  EXPECT_EQ(r.first_vmid, 100u) << "Proxmox VMIDs start at 100";
  EXPECT_GT(r.start_wait.initial_interval.count(), 0);
}

TEST(RegionSettingsFrom, NodePolicyStaticPinsEveryLaunch) {
  config::settings s;
  EXPECT_FALSE(region_settings_from(s, token_cluster(), "uid").static_cpu_policy);
  s.node_policy = config::node_policy_mode::static_pinning;
  EXPECT_TRUE(region_settings_from(s, token_cluster(), "uid").static_cpu_policy);
}

TEST(RegionSettingsFrom, TheLoadedNodeSettingsFileReachesTheRegionActorOnlyWhenItHasEntries) {
  auto file = config::parse_node_settings(
      R"({"region-1": {"pve1": {"nodes": {"0": {"cpus": "0-7"}, "1": {"cpus": "8-15"}}}}})",
      "NODE_SETTING_FILE test.json");
  ASSERT_TRUE(file.ok()) << file.error().message;
  auto r = region_settings_from(config::settings{}, token_cluster(), "uid", *file);
  ASSERT_TRUE(r.node_settings.has_value());
  ASSERT_EQ(r.node_settings->hosts.size(), 1u);
  EXPECT_EQ(r.node_settings->hosts[0].host, "pve1");
  auto none = region_settings_from(config::settings{}, token_cluster(), "uid",
                                   topology::node_settings_file{});
  EXPECT_FALSE(none.node_settings.has_value());
}

}  // namespace
}  // namespace kp::actors::region
