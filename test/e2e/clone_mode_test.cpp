// cloneMode end to end: by default the VM is a linked clone of the template (its disk names the
// template's base volume, as on lvmthin); with cloneMode full it is a copy of its own.
#include <boost/json.hpp>

#include <string>

#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

class clone_mode : public e2e_test {
 protected:
  // The scsi0 volume of the one VM the controller made.
  std::string boot_volume() {
    const auto vm = view().vms.at(0);
    auto config = pve_vm_config(vm.node, vm.vmid);
    if (!config.ok()) return "unreadable";
    std::string disk(config->at("scsi0").as_string());
    return disk.substr(0, disk.find(','));
  }
  void launch_one(const std::string& clone_mode_line) {
    apply(lab::node_class_yaml(clone_mode_line));
    start_controller();
    scale("one", 1, "250m", "512Mi");
  }
};

TEST_F(clone_mode, withoutCloneModeTheVmIsALinkedCloneOfTheTemplate) {
  KP_E2E_START();
  launch_one("");
  ASSERT_TRUE(
      wait_for([](const cluster_view& v) { return v.running() == 1 && v.vms.size() == 1; }, 90s))
      << diagnose();
  EXPECT_NE(boot_volume().find("base-"), std::string::npos) << boot_volume();
}

TEST_F(clone_mode, cloneModeFullMakesACopyOfItsOwn) {
  KP_E2E_START();
  launch_one("  cloneMode: full\n");
  ASSERT_TRUE(
      wait_for([](const cluster_view& v) { return v.running() == 1 && v.vms.size() == 1; }, 90s))
      << diagnose();
  const auto id = std::to_string(view().vms.at(0).vmid);
  EXPECT_EQ(boot_volume(), "local-lvm:vm-" + id + "-disk-0");
}

}  // namespace
}  // namespace kp::e2e
