#include <gtest/gtest.h>

#include "actors/region/inventory.hpp"

namespace kp::actors::region {
namespace {

proxmox::vm_config parse(std::map<std::string, std::string> raw) {
  auto c = proxmox::parse_vm_config(raw);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  return c.ok() ? *c : proxmox::vm_config{};
}

TEST(Inventory, APinnedVmIsRebuiltFromAffinityAndNuma) {
  auto c = parse({{"cores", "4"},
                  {"sockets", "1"},
                  {"memory", "4096"},
                  {"affinity", "0-1,16-17"},
                  {"numa0", "cpus=0-3,hostnodes=0,memory=4096,policy=bind"}});
  auto a = allocation_from_config(20001, c, true);
  EXPECT_EQ(a.vcpus, 4);
  EXPECT_EQ(a.memory_bytes, 4096ll << 20);
  EXPECT_EQ(a.pinned.to_string(), "0-1,16-17");
  ASSERT_EQ(a.numa.size(), 1u);
  EXPECT_EQ(a.numa[0].host_node, 0);
  EXPECT_EQ(a.numa[0].last_guest_cpu, 3);
}

TEST(Inventory, ATokenVmIsRebuiltFromTheAffinityPlanInItsDescription) {
  auto c = parse(
      {{"cores", "2"},
       {"memory", "2048"},
       {"description", "karpenter-proxmox: cluster=c, nodeclaim=n, nodepool=p, affinity=4,20"}});
  EXPECT_EQ(allocation_from_config(1, c, true).pinned.to_string(), "4,20");
}

TEST(Inventory, ReadsCreationTimeBootDiskAndSize) {
  auto c = parse({{"meta", "creation-qemu=8.1.5,ctime=1700000000"},
                  {"scsi0", "local-lvm:vm-1-disk-0,size=10G"}});
  EXPECT_EQ(creation_time(c), 1700000000);
  ASSERT_EQ(boot_disk(c), "scsi0");
  EXPECT_EQ(drive_size_gib(c.drives.at("scsi0")), 10u);
  EXPECT_EQ(creation_time(parse({})), 0);
}

}  // namespace
}  // namespace kp::actors::region
