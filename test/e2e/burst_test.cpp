// A burst of pending pods becomes Running on new VMs: every pod runs on a Node whose providerID
// names a VM the controller cloned, each VM carries this cluster's ownership mark and is named
// after its NodeClaim.
#include <boost/json.hpp>

#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

class burst : public e2e_test {};

TEST_F(burst, aBurstOfPendingPodsBecomesRunningOnNewVms) {
  KP_E2E_START();
  start_controller();
  scale("small", 8, "250m", "512Mi");
  scale("medium", 4, "1", "2Gi");
  ASSERT_TRUE(
      wait_for([](const cluster_view& v) { return v.pods.size() == 12 && v.running() == 12; }, 45s))
      << diagnose();
  auto v = view();
  ASSERT_FALSE(v.vms.empty());
  std::set<std::string> vm_provider_ids;
  for (const auto& vm : v.vms)
    vm_provider_ids.insert("proxmox://pve-sim/" + std::to_string(vm.vmid));
  for (const auto& p : v.pods) {
    ASSERT_TRUE(v.nodes.count(p.node))
        << p.name << " runs on unknown node " << p.node << diagnose();
    EXPECT_TRUE(vm_provider_ids.count(v.nodes.at(p.node).provider_id))
        << p.name << " runs on " << p.node << " (" << v.nodes.at(p.node).provider_id
        << "), not on a VM the controller made" << diagnose();
  }
  EXPECT_EQ(v.vm_names(), v.nodeclaim_names()) << diagnose();
  EXPECT_EQ(leaks(v), "");
  for (const auto& vm : v.vms) {
    auto config = pve_vm_config(vm.node, vm.vmid);
    ASSERT_TRUE(config.ok()) << config.error().message;
    auto description = config->if_contains("description");
    ASSERT_NE(description, nullptr) << "VM " << vm.vmid << " has no description";
    EXPECT_NE(std::string(description->as_string())
                  .find("karpenter-proxmox: cluster=lab, nodeclaim=" + vm.name),
              std::string::npos)
        << "VM " << vm.vmid << " lacks the ownership mark: " << description->as_string();
  }
}

}  // namespace
}  // namespace kp::e2e
