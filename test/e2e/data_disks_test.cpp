// A node class with additionalDisks: the VM launched for it carries the disk as its next scsi
// drive, allocated by Proxmox (pve-sim) on the named storage in the launch's config write, at
// no extra request per VM.
#include <boost/json.hpp>

#include <string>

#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

class data_disks : public e2e_test {};

TEST_F(data_disks, aNodeClassWithAnAdditionalDiskGivesItsVmASecond20GDisk) {
  KP_E2E_START();
  apply(lab::node_class_yaml("  additionalDisks: [{size: 20Gi, storage: local-lvm}]\n"));
  start_controller();
  scale("disks", 1, "250m", "512Mi");
  ASSERT_TRUE(
      wait_for([](const cluster_view& v) { return v.running() == 1 && v.vms.size() == 1; }, 90s))
      << diagnose();
  const auto vm = view().vms.at(0);
  const auto id = std::to_string(vm.vmid);
  auto config = pve_vm_config(vm.node, vm.vmid);
  ASSERT_TRUE(config.ok()) << config.error().message;
  ASSERT_TRUE(config->contains("scsi1")) << boost::json::serialize(*config);
  std::string disk(config->at("scsi1").as_string());
  EXPECT_EQ(disk.rfind("local-lvm:vm-" + id + "-disk-", 0), 0u) << disk;
  EXPECT_NE(disk.find("size=20G"), std::string::npos) << disk;
  EXPECT_EQ(pve_requests("POST /nodes/{node}/qemu/{vmid}/config"), 1)
      << "the disk rides in the launch's one config write";
  EXPECT_EQ(settled_leaks(), "");
}

}  // namespace
}  // namespace kp::e2e
