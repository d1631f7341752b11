// A change of the ProxmoxNodeClass that a running VM cannot take in place (its kubelet
// configuration) drifts every node of the pools that use it: they are rolled onto replacements,
// never more than the budget (1 node) at once. (Tags, firewall groups and the pool are synced
// into running VMs instead and never drift.)
#include "test/e2e/disruption/disruption_support.hpp"

namespace kp::e2e::disruption {
namespace {

class node_class_drift : public disruption_test {};

TEST_F(node_class_drift, aNodeClassChangeRollsEveryNodeWithinTheBudget) {
  KP_E2E_START(disruption_options());
  set_nodepool({.budgets = {"1"}});
  start_controller();
  replica_set({.name = "big", .replicas = 2, .cpu = "600m"});
  ASSERT_TRUE(wait_for(
      [](const cluster_view& v) { return v.running() == 2 && v.nodeclaims.size() == 2; }, 60s))
      << diagnose();
  const auto original = view().nodeclaim_names();

  apply(R"(
apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxNodeClass
metadata: {name: default}
spec:
  kubeletConfiguration: {maxPods: 60}
)");
  std::size_t most = 0;
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        most = std::max(most, disrupting(v).size());
        for (const auto& [name, _] : v.nodeclaims)
          if (original.count(name)) return false;
        return v.nodeclaims.size() == 2 && running_of(v, "big") == 2 &&
               v.vm_names() == v.nodeclaim_names();
      },
      60s))
      << "the nodes of the changed node class were not replaced" << diagnose();
  EXPECT_EQ(most, 1u) << "the budget of 1 node was exceeded";
  EXPECT_EQ(settled_leaks(), "");
}

}  // namespace
}  // namespace kp::e2e::disruption
