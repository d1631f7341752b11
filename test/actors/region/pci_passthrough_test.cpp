// PCI devices between Proxmox's formats and placement: the devices /cluster/mapping/pci maps per
// host, the devices a VM's hostpciN entries hold, and the hostpciN entries a launch writes.
#include "actors/region/pci_passthrough.hpp"

#include <gtest/gtest.h>

#include "actors/region/inventory.hpp"

namespace kp::actors::region {
namespace {

TEST(PciPassthrough, EachMapEntryIsOneDeviceOnTheHostItNames) {
  std::vector<proxmox::pci_resource_mapping> listed{
      {"gpu",
       false,
       {"node=pve2,path=0000:01:00.0,id=10de:2204,iommugroup=12",
        "node=pve3,path=0000:01:00.0,id=10de:2204", "node=pve3,path=0000:41:00.0,id=10de:2204"}},
      {"igpu", true, {"node=pve1,path=0000:00:02.0;0000:00:02.1,id=8086:3e92"}},
      {"empty", false, {}}};
  auto mappings = pci_mappings_of(listed);
  ASSERT_EQ(mappings.size(), 3u);
  EXPECT_EQ(mappings[0].devices, (std::map<std::string, int>{{"pve2", 1}, {"pve3", 2}}));
  EXPECT_EQ(mappings[1].devices, (std::map<std::string, int>{{"pve1", 1}}))
      << "a multi-function set in one entry is one device";
  EXPECT_TRUE(mappings[1].mdev);
  EXPECT_TRUE(mappings[2].devices.empty());
}

TEST(PciPassthrough, AVmHoldsOneDevicePerMappedHostpciEntry) {
  proxmox::vm_config c;
  c.raw = {{"hostpci0", "mapping=gpu,pcie=1"},
           {"hostpci3", "mapping=gpu"},
           {"hostpci4", "0000:02:00.0"},
           {"hostpci5", "host=0000:03:00.0,rombar=0"},
           {"hostpci6", "mapping=igpu,mdev=i915-GVTg_V5_4"}};
  EXPECT_EQ(mapped_pci_devices(c), (placement::pci_counts{{"gpu", 2}, {"igpu", 1}}));
  EXPECT_EQ(allocation_from_config(101, c, true).pci,
            (placement::pci_counts{{"gpu", 2}, {"igpu", 1}}))
      << "placement counts what a VM's config holds";
}

TEST(PciPassthrough, EachDeviceTakesTheNextFreeHostpciWithItsOptions) {
  proxmox::vm_config base;
  base.raw = {{"hostpci0", "mapping=nic"}};
  std::vector<protocol::pci_device> devices{
      {"gpu", "nvidia.com/gpu", 2, true, ""},
      {"igpu", "gpu.intel.com/i915", 1, false, "i915-GVTg_V5_4"}};
  auto entries = hostpci_entries(base, devices);
  ASSERT_TRUE(entries.ok()) << entries.error().message;
  EXPECT_EQ(*entries,
            (std::map<std::string, std::string>{{"hostpci1", "mapping=gpu,pcie=1"},
                                                {"hostpci2", "mapping=gpu,pcie=1"},
                                                {"hostpci3", "mapping=igpu,mdev=i915-GVTg_V5_4"}}));
  auto none = hostpci_entries(base, {});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(PciPassthrough, PassingHostpci15IsAnError) {
  proxmox::vm_config base;
  for (int i = 0; i < 15; ++i) base.raw["hostpci" + std::to_string(i)] = "mapping=nic";
  auto one = hostpci_entries(base, {{"gpu", "nvidia.com/gpu", 1, false, ""}});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->count("hostpci15"), 1u);
  auto two = hostpci_entries(base, {{"gpu", "nvidia.com/gpu", 2, false, ""}});
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.error().code, "invalid_request");
  EXPECT_NE(two.error().message.find("hostpci15"), std::string::npos) << two.error().message;
}

}  // namespace
}  // namespace kp::actors::region
