// ProxmoxNodeClass pciDevices: decoded and encoded as the CRD spells them, checked into
// placement's device needs, errors naming the field and the value.
#include "protocol/kube/node_class_pci.hpp"

#include <gtest/gtest.h>

#include "protocol/kube/codec.hpp"

namespace kp::kube {
namespace {

proxmox_node_class with_devices(std::vector<node_class_pci_device> devices) {
  proxmox_node_class nc;
  nc.metadata.name = "gpu";
  nc.spec.instance_template_ref = {"ProxmoxUnmanagedTemplate", "k8s-template"};
  nc.spec.pci_devices = std::move(devices);
  return nc;
}

TEST(NodeClassPci, TheCodecReadsAndWritesPciDevicesAsTheCrdSpellsThem) {
  auto nc = decode<proxmox_node_class>(R"({"metadata": {"name": "gpu"}, "spec": {
      "instanceTemplateRef": {"kind": "ProxmoxTemplate", "name": "t"},
      "pciDevices": [{"mapping": "gpu", "resourceName": "nvidia.com/gpu", "count": 2,
                      "pcie": true},
                     {"mapping": "igpu", "resourceName": "gpu.intel.com/i915",
                      "mdev": "i915-GVTg_V5_4"}]}})");
  ASSERT_TRUE(nc.ok()) << nc.error().message;
  ASSERT_EQ(nc->spec.pci_devices.size(), 2u);
  EXPECT_EQ(nc->spec.pci_devices[0], (node_class_pci_device{"gpu", "nvidia.com/gpu", 2, true, ""}));
  EXPECT_EQ(nc->spec.pci_devices[1],
            (node_class_pci_device{"igpu", "gpu.intel.com/i915", std::nullopt, std::nullopt,
                                   "i915-GVTg_V5_4"}));
  auto again = decode<proxmox_node_class>(encode(*nc));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->spec.pci_devices, nc->spec.pci_devices);
  auto missing = decode<proxmox_node_class>(R"({"spec": {
      "instanceTemplateRef": {"kind": "ProxmoxTemplate", "name": "t"},
      "pciDevices": [{"mapping": "gpu"}]}})");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("pciDevices[0].resourceName"), std::string::npos)
      << missing.error().message;
}

TEST(NodeClassPci, EntriesBecomeDeviceNeedsWithCountOneByDefault) {
  auto needs = pci_device_needs(with_devices({{"gpu", "nvidia.com/gpu", std::nullopt, true, ""},
                                              {"igpu", "gpu.intel.com/i915", 2, {}, "i915-x"}}));
  ASSERT_TRUE(needs.ok()) << needs.error().message;
  ASSERT_EQ(needs->size(), 2u);
  EXPECT_EQ((*needs)[0], (placement::pci_device_need{"gpu", "nvidia.com/gpu", 1, true, ""}));
  EXPECT_EQ((*needs)[1],
            (placement::pci_device_need{"igpu", "gpu.intel.com/i915", 2, false, "i915-x"}));
  EXPECT_TRUE(pci_device_needs(with_devices({}))->empty());
}

TEST(NodeClassPci, BadEntriesAreRefusedNamingTheFieldAndTheValue) {
  struct bad {
    node_class_pci_device device;
    std::string field;
  };
  const std::vector<bad> cases{
      {{"1gpu", "nvidia.com/gpu", {}, {}, ""}, "pciDevices[0].mapping \"1gpu\""},
      {{"gpu", "gpu", {}, {}, ""}, "pciDevices[0].resourceName \"gpu\""},
      {{"gpu", "Nvidia.com/gpu", {}, {}, ""}, "resourceName"},
      {{"gpu", "nvidia.com/", {}, {}, ""}, "resourceName"},
      {{"gpu", "kubernetes.io/gpu", {}, {}, ""}, "resourceName"},
      {{"gpu", "example.kubernetes.io/gpu", {}, {}, ""}, "resourceName"},
      {{"gpu", "nvidia.com/gpu", 0, {}, ""}, "pciDevices[0].count \"0\""},
      {{"gpu", "nvidia.com/gpu", 17, {}, ""}, "count"},
      {{"gpu", "nvidia.com/gpu", {}, {}, "a/b"}, "pciDevices[0].mdev \"a/b\""},
  };
  for (const auto& c : cases) {
    auto r = pci_device_needs(with_devices({c.device}));
    ASSERT_FALSE(r.ok()) << c.field;
    EXPECT_EQ(r.error().code, "invalid_node_class");
    EXPECT_NE(r.error().message.find(c.field), std::string::npos) << r.error().message;
  }
  auto too_many = pci_device_needs(
      with_devices({{"gpu", "nvidia.com/gpu", 10, {}, ""}, {"nic", "example.com/nic", 7, {}, ""}}));
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.error().message.find("pciDevices[1].count"), std::string::npos)
      << too_many.error().message;
}

}  // namespace
}  // namespace kp::kube
