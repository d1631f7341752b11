// Another cluster's VMs in the same Proxmox are never touched: VMs marked for another cluster, a
// hand-made VM and a Go provider VM live beside ours; the garbage collector removes an orphan of
// this cluster (so it has run past its grace period) and leaves the others as they were.
#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

class foreign_cluster : public e2e_test {};

TEST_F(foreign_cluster, anotherClustersVmsInTheSameProxmoxAreNeverTouched) {
  auto options = e2e_options();
  options.controller_settings["orphan-vm-grace-period"] = "2s";
  options.controller_settings["garbage-collection-interval"] = "1s";
  KP_E2E_START(options);
  ASSERT_NO_FATAL_FAILURE(pve_create_vm(
      "pve1", 500, "default-other1",
      "karpenter-proxmox: cluster=other, nodeclaim=default-other1, nodepool=default", true));
  ASSERT_NO_FATAL_FAILURE(pve_create_vm(
      "pve2", 501, "default-other2",
      "karpenter-proxmox: cluster=other, nodeclaim=default-other2, nodepool=default", false));
  ASSERT_NO_FATAL_FAILURE(
      pve_create_vm("pve3", 502, "hand-made", "a VM somebody made by hand", true));
  ASSERT_NO_FATAL_FAILURE(pve_create_vm("pve2", 504, "default-go1",
                                        "Karpenter managed instance, class=default", false));
  ASSERT_NO_FATAL_FAILURE(pve_create_vm(
      "pve1", 503, "default-orphan",
      "karpenter-proxmox: cluster=lab, nodeclaim=default-orphan, nodepool=default", false));
  std::map<int, std::pair<std::string, std::string>> foreign{
      {500, {"pve1", pve_config_digest("pve1", 500)}},
      {501, {"pve2", pve_config_digest("pve2", 501)}},
      {502, {"pve3", pve_config_digest("pve3", 502)}},
      {504, {"pve2", pve_config_digest("pve2", 504)}}};
  start_controller();
  scale("web", 4, "500m", "1Gi");
  ASSERT_TRUE(wait_for([](const cluster_view& v) { return v.running() == 4; }, 45s)) << diagnose();
  // Our orphan goes once older than the grace period: the collector has looked at every VM.
  ASSERT_TRUE(wait_for(
      [](const cluster_view& v) {
        for (const auto& vm : v.vms)
          if (vm.vmid == 503) return false;
        return true;
      },
      20s))
      << "this cluster's orphan VM 503 was not collected" << diagnose();
  for (const auto& [vmid, where] : foreign)
    EXPECT_EQ(pve_config_digest(where.first, vmid), where.second)
        << "VM " << vmid << " was changed or deleted";
  for (const auto& [name, claim] : view().nodeclaims)
    EXPECT_TRUE(name.find("other") == std::string::npos && name != "hand-made")
        << name << " adopted";
}

}  // namespace
}  // namespace kp::e2e
