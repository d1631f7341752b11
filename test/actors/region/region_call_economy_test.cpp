// How few Proxmox requests the region actor makes, in virtual time over the in-memory Proxmox:
// task waits that start from the typical duration they learnt, host facts and template marks
// served from what was read recently, and a launch that updates the inventory by what it wrote
// instead of listing the region again.
#include <gtest/gtest.h>

#include "actors/region/region_actor.hpp"
#include "core/cloudinit/nocloud_iso.hpp"
#include "core/ownership/template_mark.hpp"
#include "test/actors/region/region_actor_fixture.hpp"

namespace kp::actors::region {
namespace {

using namespace std::chrono_literals;
using namespace kp::protocol;

class RegionCallEconomy : public region_actor_fixture {
 protected:
  RegionCallEconomy() : region_actor_fixture(1) {}

  region_settings settings() { return quiet_settings(); }
  // A template whose ipconfig0 asks the simple IPAM for an address in the hosts' subnet.
  void template_asks_for_an_address() {
    pve->vms.at(9001).config.ipconfigs[0] = "ip=192.168.10.0/24,gw=192.168.10.1";
  }
  void refresh_now(region_actor a) {
    caf::anon_send(a, refresh_atom::value);
    sched().run();
  }
};

TEST_F(RegionCallEconomy, ATaskWaitStartsFromTheDurationLearntForThatTaskTypeOnThatHost) {
  pve->task_durations["qmclone"] = 5s;
  auto a = spawn(settings());
  pve->reset_counts();
  auto first = launch(a, request("claim-a"));
  ASSERT_TRUE(first.ok) << first.error.message;
  const int first_polls = pve->task_reads();
  pve->reset_counts();
  auto second = launch(a, request("claim-b"));
  ASSERT_TRUE(second.ok) << second.error.message;
  const int second_polls = pve->task_reads();
  // The first clone is polled at once, then at 100 ms doubling up to 1 s: nine polls over its
  // 5 s, plus one each for upload, config and start. The second clone's first poll waits about
  // as long as the first took: one or two polls.
  EXPECT_GE(first_polls, 10);
  EXPECT_LE(second_polls, 5);
}

TEST_F(RegionCallEconomy, ALaunchRecordsItsVmWithoutListingTheRegionAgain) {
  auto a = spawn(settings());
  // The first launch after the NodeClaims' VMIDs arrive lists the region once (a new leader's).
  ASSERT_TRUE(launch(a, request("claim-c")).ok);
  pve->reset_counts();
  auto r = launch(a, request("claim-d"));
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(pve->calls["cluster_resources"], 0);
  EXPECT_EQ(pve->calls["vm_config"], 0);
  auto inv = call<region_inventory>(a, inventory_atom::value);
  EXPECT_EQ(inv.vms, 2u) << "the new VMs are in the inventory from the launches' own replies";
}

TEST_F(RegionCallEconomy, ALaunchedVmsOwnRecordServesRefreshesUntilItsMaxAge) {
  auto s = settings();
  s.launched_config_max_age = 5min;
  auto a = spawn(s);
  ASSERT_TRUE(launch(a, request("claim-e")).ok);
  pve->reset_counts();
  caf::anon_send(a, refresh_atom::value);
  sched().run();
  EXPECT_EQ(pve->calls["cluster_resources"], 1);
  EXPECT_EQ(pve->calls["vm_config"], 0) << "the launch's own record serves";
  auto inv = call<region_inventory>(a, inventory_atom::value);
  EXPECT_EQ(inv.vms, 1u);
  advance(6min);
  caf::anon_send(a, refresh_atom::value);
  sched().run();
  EXPECT_EQ(pve->calls["vm_config"], 1) << "past its age a refresh reads the real config";
  caf::anon_send(a, refresh_atom::value);
  sched().run();
  EXPECT_EQ(pve->calls["vm_config"], 1) << "a read config is not read again";
}

TEST_F(RegionCallEconomy, HostFactsAreReadOnceAndAgainOnlyPastTheirAge) {
  template_asks_for_an_address();
  auto s = settings();
  s.host_facts_max_age = 10min;
  auto a = spawn(s);
  EXPECT_EQ(pve->calls["node_status"], 1);
  ASSERT_TRUE(launch(a, request("claim-facts")).ok) << "its template asks for an address";
  EXPECT_EQ(pve->calls["node_network"], 1);
  const int listings = pve->calls["cluster_resources"];
  refresh_now(a);
  EXPECT_EQ(pve->calls["cluster_resources"], listings + 1);
  EXPECT_EQ(pve->calls["node_status"], 1) << "fresh facts are not read again";
  EXPECT_EQ(pve->calls["node_network"], 1) << "fresh facts are not read again";
  advance(11min);
  refresh_now(a);
  EXPECT_EQ(pve->calls["node_status"], 2);
  EXPECT_EQ(pve->calls["node_network"], 2);
}

TEST_F(RegionCallEconomy, ALaunchWithDhcpAndTheBuiltInCloudInitReadsNoHostBridges) {
  auto a = spawn(settings());
  auto r = launch(a, request("claim-dhcp"));
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_TRUE(r.ipconfig0.empty()) << r.ipconfig0;
  refresh_now(a);
  EXPECT_EQ(pve->calls["node_network"], 0) << "nothing the launch wrote came from a bridge";
}

TEST_F(RegionCallEconomy, ATemplateAskingForAnAddressReadsTheBridgesOnceBeforeItsFirstLaunch) {
  template_asks_for_an_address();
  auto a = spawn(settings());
  EXPECT_EQ(pve->calls["node_network"], 0) << "no launch needed them yet";
  auto first = launch(a, request("claim-ip-a"));
  ASSERT_TRUE(first.ok) << first.error.message;
  EXPECT_EQ(pve->calls["node_network"], 1);
  // The search starts at the host bridge's address (192.168.10.11), which is taken.
  EXPECT_EQ(first.ipconfig0.rfind("ip=192.168.10.12/24", 0), 0u) << first.ipconfig0;
  auto second = launch(a, request("claim-ip-b"));
  ASSERT_TRUE(second.ok) << second.error.message;
  EXPECT_EQ(second.ipconfig0.rfind("ip=192.168.10.13/24", 0), 0u) << second.ipconfig0;
  refresh_now(a);
  EXPECT_EQ(pve->calls["node_network"], 1) << "read once, kept for their age";
}

TEST_F(RegionCallEconomy, LaunchesWaitingForTheBridgesShareOneReadPerHost) {
  template_asks_for_an_address();
  auto a = spawn(settings());
  auto first = ask<launch_reply>(a, launch_atom::value, request("claim-share-a"));
  auto second = ask<launch_reply>(a, launch_atom::value, request("claim-share-b"));
  auto one = await(first);
  auto two = await(second);
  ASSERT_TRUE(one.ok) << one.error.message;
  ASSERT_TRUE(two.ok) << two.error.message;
  EXPECT_NE(one.ipconfig0, two.ipconfig0);
  EXPECT_EQ(pve->calls["node_network"], 1);
}

TEST_F(RegionCallEconomy, TheNodeClassesOwnCloudInitTemplatesGetTheHostBridgesAddress) {
  auto a = spawn(settings());
  auto req = request("claim-own-templates");
  req.cloud_init->sources.origin = "Secret default/templates";
  req.cloud_init->sources.documents["network-config"] =
      "{{ range .Interfaces }}{{ .NodeAddress4 }} via {{ .NodeGateway4 }}{{ end }}\n";
  auto r = launch(a, req);
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(pve->calls["node_network"], 1);
  ASSERT_EQ(pve->isos["pve1"].size(), 1u);
  auto files = cloudinit::read_nocloud_iso(pve->iso_bytes.at(pve->isos["pve1"][0].volid));
  ASSERT_TRUE(files.ok()) << files.error().message;
  ASSERT_TRUE(files->network_config.has_value());
  EXPECT_EQ(*files->network_config, "192.168.10.11/24 via 192.168.10.1\n");
}

TEST_F(RegionCallEconomy, AFailedHostStatusReadIsTriedAgainAtTheNextRefresh) {
  pve->fail_next("node_status", make_error("server_error", "500 busy"));
  auto a = spawn(settings());
  EXPECT_EQ(pve->calls["node_status"], 1);
  caf::anon_send(a, refresh_atom::value);
  sched().run();
  EXPECT_EQ(pve->calls["node_status"], 2);
  auto inv = call<region_inventory>(a, inventory_atom::value);
  EXPECT_EQ(inv.capacity.size(), 1u) << "the host is placeable once its status is read";
}

TEST_F(RegionCallEconomy, TheTemplateObservationUsesAMarkReadWithinItsMaxAge) {
  auto& tmpl = pve->vms.at(9001);
  tmpl.config.description =
      ownership::format_template_mark({cluster, "k8s-template", "img.qcow2", "", false});
  auto s = settings();
  s.template_config_max_age = 5min;
  auto a = spawn(s);
  template_observe_request req;
  req.template_names = {"k8s-template"};
  pve->reset_counts();
  auto seen = call<template_observation>(a, template_atom::value, req);
  ASSERT_TRUE(seen.ok) << seen.error;
  ASSERT_EQ(seen.vms.size(), 1u);
  EXPECT_EQ(seen.vms[0].vmid, 9001u);
  EXPECT_EQ(pve->calls["vm_config"], 0) << "the refresh read it moments ago";
  EXPECT_EQ(pve->calls["storages"], 0) << "the storages come from /cluster/resources";
  ASSERT_EQ(seen.hosts.size(), 1u);
  ASSERT_EQ(seen.hosts[0].storages.size(), 1u);
  EXPECT_TRUE(seen.hosts[0].storages[0].active);
  EXPECT_EQ(seen.hosts[0].storages[0].avail, 100ull << 30);
  advance(6min);
  seen = call<template_observation>(a, template_atom::value, req);
  ASSERT_EQ(seen.vms.size(), 1u);
  EXPECT_EQ(pve->calls["vm_config"], 1) << "past its age it is read again";
}

}  // namespace
}  // namespace kp::actors::region
