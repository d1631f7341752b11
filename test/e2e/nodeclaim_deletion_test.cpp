// Deleting a NodeClaim drains its node: the node is tainted karpenter.sh/disrupted, its pods stay
// while a PodDisruptionBudget allows no eviction, and once the budget allows, the pods are
// evicted, the Node goes and the VM is deleted.
#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

class nodeclaim_deletion : public e2e_test {};

TEST_F(nodeclaim_deletion, deletingANodeClaimDrainsItsNodeOnlyAsThePdbAllowsAndDeletesItsVm) {
  KP_E2E_START();
  start_controller();
  apply(R"(
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: guarded, namespace: default}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: guarded}}
)");
  scale("guarded", 2, "250m", "256Mi");
  ASSERT_TRUE(wait_for([](const cluster_view& v) { return v.running() == 2; }, 45s)) << diagnose();
  auto before = view();
  const auto node = before.pods.front().node;
  std::string claim;
  for (const auto& [name, c] : before.nodeclaims)
    if (c.node_name == node) claim = name;
  ASSERT_FALSE(claim.empty()) << "no NodeClaim for node " << node << diagnose();
  int vmid = 0;
  for (const auto& vm : before.vms)
    if (vm.name == claim) vmid = vm.vmid;
  ASSERT_NE(vmid, 0) << diagnose();

  ASSERT_TRUE(world->remove("karpenter.sh/v1", "NodeClaim", claim).ok());
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        if (!v.nodes.count(node)) return false;
        for (const auto& t : v.nodes.at(node).taints)
          if (t == "karpenter.sh/disrupted:NoSchedule") return true;
        return false;
      },
      15s))
      << "node " << node << " was not tainted" << diagnose();
  // The budget allows no disruption: for a while, the pods on the node stay and the VM lives.
  bool held = !lab::lab_world::eventually(
      [&] {
        auto v = view();
        long on_node = 0;
        for (const auto& p : v.pods)
          if (p.node == node && !p.terminating) ++on_node;
        bool vm_alive = false;
        for (const auto& vm : v.vms) vm_alive = vm_alive || vm.vmid == vmid;
        return on_node < static_cast<long>(std::count_if(
                             before.pods.begin(), before.pods.end(),
                             [&](const pod_view& p) { return p.node == node; })) ||
               !vm_alive;
      },
      3s);
  EXPECT_TRUE(held) << "pods were evicted or the VM deleted despite the PodDisruptionBudget"
                    << diagnose();

  apply(R"(
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: guarded, namespace: default}
spec:
  minAvailable: 0
  selector: {matchLabels: {app: guarded}}
)");
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        for (const auto& vm : v.vms)
          if (vm.vmid == vmid) return false;
        for (const auto& p : v.pods)
          if (p.node == node) return false;
        return v.nodes.count(node) == 0 && v.nodeclaims.count(claim) == 0;
      },
      30s))
      << "node " << node << " / VM " << vmid << " not removed" << diagnose();
  // The ReplicaSet's replacements run elsewhere.
  ASSERT_TRUE(wait_for([](const cluster_view& v) { return v.running() == 2; }, 45s)) << diagnose();
  EXPECT_EQ(settled_leaks(), "");
}

}  // namespace
}  // namespace kp::e2e
