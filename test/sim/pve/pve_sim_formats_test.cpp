// Unit tests of pve-sim's value formats: property strings, tags, CPU sets, sizes, topology and
// fault plans.
#include <gtest/gtest.h>

#include "sim/pve/faults.hpp"
#include "sim/pve/guest_join_plan.hpp"
#include "sim/pve/property_string.hpp"
#include "sim/pve/request_params.hpp"
#include "sim/pve/topology.hpp"

using namespace kp::sim::pve;

TEST(PveSimFormats, TagsAreLowerCasedDeduplicatedSortedAndJoinedWithSemicolons) {
  auto t = normalize_tags("Zeta,alpha; beta alpha");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, "alpha;beta;zeta");
}

TEST(PveSimFormats, TagsWithInvalidCharactersAreRefused) {
  EXPECT_FALSE(normalize_tags("ok,bad/tag").ok());
}

TEST(PveSimFormats, AffinityIsNormalisedToTheShortForm) {
  EXPECT_EQ(*normalize_cpuset("0,1,2,3,8-11"), "0-3,8-11");
  EXPECT_EQ(*normalize_cpuset("5,0,1"), "0-1,5");
  EXPECT_FALSE(normalize_cpuset("3-1").ok());
  EXPECT_FALSE(normalize_cpuset("a").ok());
}

TEST(PveSimFormats, PropertyStringsKeepTheDefaultKeyBare) {
  auto v = with_property("local-lvm:vm-100-disk-0,iothread=1,size=10G", "size", "20G", "file");
  EXPECT_EQ(v, "local-lvm:vm-100-disk-0,iothread=1,size=20G");
  EXPECT_EQ(property_value("cpus=0-3,hostnodes=0,memory=1024", "memory", "cpus"), "1024");
}

TEST(PveSimFormats, DiskSizesParseWithUnitsAndRelativeGrowth) {
  bool relative = false;
  EXPECT_EQ(*parse_disk_size("+2G", &relative), 2ull << 30);
  EXPECT_TRUE(relative);
  EXPECT_EQ(*parse_disk_size("512M"), 512ull << 20);
  EXPECT_EQ(format_disk_size(10ull << 30), "10G");
}

TEST(PveSimFormats, FormBodiesDecodeRepeatedKeysAndPlusAsSpace) {
  request_params p;
  parse_form("command=ls&command=-l&name=a+b%21", p);
  EXPECT_EQ(p.all("command").size(), 2u);
  EXPECT_EQ(*p.get("name"), "a b!");
}

TEST(PveSimFormats, TheDefaultTopologyHasThreeHostsOf32CpusAndTwoNumaNodes) {
  auto t = parse_topology(default_topology_yaml());
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->hosts.size(), 3u);
  for (const auto& h : t->hosts) {
    EXPECT_EQ(h.logical_cpus(), 32);
    EXPECT_EQ(h.memory, 128ull << 30);
    ASSERT_EQ(h.numa.size(), 2u);
    EXPECT_EQ(h.numa[0].cpus, "0-7,16-23");
  }
  int templates = 0, capacity = 0;
  for (const auto& v : t->vms) {
    if (v.config.at("name") == "k8s-template") ++templates;
    if (v.config.at("name") == "node-capacity") {
      ++capacity;
      EXPECT_EQ(v.config.at("tags"), "karpenter");
    }
  }
  EXPECT_EQ(templates, 3);
  EXPECT_EQ(capacity, 3);
  EXPECT_EQ(t->users.size(), 2u);
  EXPECT_EQ(t->firewall_groups.at(0).name, "kubernetes");
}

TEST(PveSimFormats, ATopologyNamingAnUnknownStorageIsRefused) {
  auto t = parse_topology("hosts: [{name: a, memory: 1Gi, storages: [nope]}]\n");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("nope"), std::string::npos);
}

TEST(PveSimFormats, FaultPlansParseFromJson) {
  auto plan = parse_fault_plan(
      R"({"errors":[{"path":"/cluster/nextid","rate":1,"status":503,"count":1}],"offline_hosts":["pve2"],"slow_clone_factor":3})");
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  fault_injector f;
  f.replace(*plan);
  EXPECT_TRUE(f.request_error("GET", "/cluster/nextid").has_value());
  EXPECT_FALSE(f.request_error("GET", "/cluster/nextid").has_value());  // count used up
  EXPECT_EQ(f.host_offline("pve2"), 595);
  EXPECT_DOUBLE_EQ(f.clone_factor(), 3.0);
}

TEST(PveSimFormats, AJoinCommandCarriesServerTokenAndLabels) {
  auto p = join_plan_from_command(
      "bash -c kube-join server=https://127.0.0.1:6443 token=abcdef.0123456789abcdef "
      "labels=a=b,c=d");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->server, "https://127.0.0.1:6443");
  EXPECT_EQ(p->labels.at("c"), "d");
  EXPECT_FALSE(join_plan_from_command("kube-join token=x").ok());
}

TEST(PveSimFormats, UserDataWithoutTheKubeletFilesNeverJoins) {
  EXPECT_FALSE(join_plan_from_user_data("#cloud-config\nwrite_files: []\n").ok());
  EXPECT_FALSE(join_plan_from_user_data("#!/bin/sh\necho hi\n").ok());
}
