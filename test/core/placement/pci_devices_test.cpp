#include "core/placement/pci_devices.hpp"

#include <gtest/gtest.h>

#include "core/placement/place_vm.hpp"
#include "test/core/placement/fixtures.hpp"

namespace kp::placement {
namespace {

using testing::gib;
using testing::make_host;

// The lab's mapping: one GPU on pve2, two on pve3, none on pve1.
std::vector<pci_mapping> lab_mappings() {
  return {{"gpu", false, {{"pve2", 1}, {"pve3", 2}}}, {"igpu", true, {{"pve1", 1}}}};
}

std::vector<host_state> lab_hosts() {
  std::vector<host_state> hosts{make_host("pve1"), make_host("pve2"), make_host("pve3")};
  auto devices = pci_devices_by_host(lab_mappings());
  for (auto& h : hosts) h.pci_devices = devices[h.name()];
  return hosts;
}

TEST(PciDevices, EachHostHasTheDevicesItsMappingsListThere) {
  auto devices = pci_devices_by_host(lab_mappings());
  EXPECT_EQ(devices["pve1"], (pci_counts{{"igpu", 1}}));
  EXPECT_EQ(devices["pve2"], (pci_counts{{"gpu", 1}}));
  EXPECT_EQ(devices["pve3"], (pci_counts{{"gpu", 2}}));
}

TEST(PciDevices, ADeviceAVmHoldsIsNotFreeAndComesBackWhenTheVmGoes) {
  auto hosts = lab_hosts();
  hosts[2].add({101, 2, 4 * gib, {}, {}, false, {{"gpu", 1}}});
  auto free = free_pci_devices(hosts);
  EXPECT_EQ(free["pve2"], (pci_counts{{"gpu", 1}}));
  EXPECT_EQ(free["pve3"], (pci_counts{{"gpu", 1}}));
  hosts[1].add({102, 2, 4 * gib, {}, {}, true, {{"gpu", 1}}});
  free = free_pci_devices(hosts);
  EXPECT_EQ(free["pve2"], (pci_counts{{"gpu", 0}}));
  ASSERT_TRUE(hosts[1].remove(102));
  EXPECT_EQ(free_pci_devices(hosts)["pve2"], (pci_counts{{"gpu", 1}}));
}

TEST(PciDevices, VmsHoldingMoreThanTheHostHasLeaveNoneFreeNotANegativeCount) {
  auto hosts = lab_hosts();
  hosts[1].add({101, 1, gib, {}, {}, false, {{"gpu", 1}}});
  hosts[1].add({102, 1, gib, {}, {}, false, {{"gpu", 1}}});
  EXPECT_EQ(hosts[1].free_pci(), (pci_counts{{"gpu", 0}}));
}

TEST(PciDevices, NeedsAddUpPerMappingAndResourcesPerName) {
  std::vector<pci_device_need> needs{{"gpu", "nvidia.com/gpu", 1, false, ""},
                                     {"gpu", "nvidia.com/gpu", 1, true, ""},
                                     {"igpu", "gpu.intel.com/i915", 1, false, "i915-GVTg_V5_4"}};
  EXPECT_EQ(pci_needs(needs), (pci_counts{{"gpu", 2}, {"igpu", 1}}));
  EXPECT_EQ(pci_resources(needs), (std::map<std::string, std::int64_t>{{"gpu.intel.com/i915", 1},
                                                                       {"nvidia.com/gpu", 2}}));
  EXPECT_TRUE(pci_fits({{"gpu", 2}}, {{"gpu", 2}}));
  EXPECT_FALSE(pci_fits({{"gpu", 2}}, {{"gpu", 1}}));
  EXPECT_FALSE(pci_fits({{"gpu", 1}}, {{"igpu", 1}}));
  EXPECT_EQ(pci_shortfall({{"gpu", 2}}, {{"gpu", 1}}),
            "1 of 2 wanted devices of PCI mapping gpu free");
  EXPECT_EQ(pci_shortfall({{"gpu", 1}}, {{"gpu", 1}}), "");
}

TEST(PciDevices, PlacementPutsAVmNeedingADeviceOnlyWhereOneIsFree) {
  auto hosts = lab_hosts();
  placement_cursor cursor;
  vm_request want{2, 4 * gib, {{"gpu", 1}}};
  std::map<std::string, int> placed;
  for (int vmid = 200; vmid < 203; ++vmid) {
    auto d = place_vm(hosts, vmid, want, {}, strategy::balanced, cpu_policy::simple, cursor);
    ASSERT_TRUE(d.ok()) << d.error().message;
    ++placed[hosts[d->host].name()];
  }
  EXPECT_EQ(placed, (std::map<std::string, int>{{"pve2", 1}, {"pve3", 2}}));
}

TEST(PciDevices, TwoVmsNeverGetOneDevice) {
  auto hosts = lab_hosts();
  placement_cursor cursor;
  vm_request want{1, gib, {{"gpu", 1}}};
  // Three devices in the region: the fourth VM finds none, whatever the strategy.
  for (auto s : {strategy::pack, strategy::spread}) {
    auto fresh = hosts;
    for (int vmid = 300; vmid < 303; ++vmid)
      ASSERT_TRUE(place_vm(fresh, vmid, want, {}, s, cpu_policy::simple, cursor).ok());
    auto fourth = place_vm(fresh, 303, want, {}, s, cpu_policy::simple, cursor);
    ASSERT_FALSE(fourth.ok());
    EXPECT_NE(fourth.error().message.find("pve3: 0 of 1 wanted devices of PCI mapping gpu free"),
              std::string::npos)
        << fourth.error().message;
    for (const auto& [host, free] : free_pci_devices(fresh))
      for (const auto& [mapping, n] : free) EXPECT_GE(n, 0) << host << " " << mapping;
  }
}

TEST(PciDevices, AVmWithoutDevicesStillGoesWhereverItFits) {
  auto hosts = lab_hosts();
  placement_cursor cursor;
  auto d = place_vm(hosts, 400, {2, 4 * gib}, {}, strategy::balanced, cpu_policy::simple, cursor);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(hosts[d->host].name(), "pve1");
}

}  // namespace
}  // namespace kp::placement
