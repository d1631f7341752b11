// What holds consolidation back: of three underused nodes, the one running a pod annotated
// karpenter.sh/do-not-disrupt and the one running a pod whose PodDisruptionBudget allows no
// disruption stay (each named in a DisruptionBlocked Event), and only the third is consolidated.
#include "test/e2e/disruption/disruption_support.hpp"

namespace kp::e2e::disruption {
namespace {

class blocked_disruption : public disruption_test {};

TEST_F(blocked_disruption, doNotDisruptPodsAndZeroBudgetPdbsKeepTheirNodes) {
  KP_E2E_START(disruption_options());
  set_nodepool({.policy = "WhenEmptyOrUnderutilized"});
  apply(R"(
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: guarded, namespace: default}
spec:
  maxUnavailable: 0
  selector: {matchLabels: {app: guarded}}
)");
  start_controller();
  // Three full nodes (a 600m pod fills one), then one 250m pod of each kind, which fits on no
  // node but an empty share of each: one per node.
  replica_set({.name = "big", .replicas = 3, .cpu = "600m"});
  ASSERT_TRUE(wait_for(
      [](const cluster_view& v) { return v.running() == 3 && v.nodeclaims.size() == 3; }, 60s))
      << diagnose();
  replica_set(
      {.name = "keep", .replicas = 1, .annotations = {{"karpenter.sh/do-not-disrupt", "true"}}});
  replica_set({.name = "guarded", .replicas = 1});
  replica_set({.name = "free", .replicas = 1});
  ASSERT_TRUE(wait_for([](const cluster_view& v) { return v.running() == 6; }, 30s)) << diagnose();
  auto before = view();
  ASSERT_EQ(before.nodeclaims.size(), 3u) << diagnose();
  const auto keep_claim = claim_of_pod(before, "keep-");
  const auto guarded_claim = claim_of_pod(before, "guarded-");
  const auto free_claim = claim_of_pod(before, "free-");
  ASSERT_EQ(std::set<std::string>({keep_claim, guarded_claim, free_claim}).size(), 3u)
      << diagnose();
  const auto keep_node = before.nodeclaims.at(keep_claim).node_name;
  const auto guarded_node = before.nodeclaims.at(guarded_claim).node_name;

  // Leave each node three quarters empty: only the unprotected one may go.
  replica_set({.name = "big", .replicas = 0, .cpu = "600m"});
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        return v.nodeclaims.count(free_claim) == 0 && running_of(v, "free") == 1 &&
               v.vm_names() == v.nodeclaim_names();
      },
      60s))
      << "the unprotected node was not consolidated" << diagnose();
  // For a while, the protected nodes stay untouched.
  const bool touched = lab::lab_world::eventually(
      [&] {
        auto v = view();
        return v.nodeclaims.count(keep_claim) == 0 || v.nodeclaims.count(guarded_claim) == 0 ||
               !disrupting(v).empty();
      },
      5s);
  EXPECT_FALSE(touched) << "a protected node was disrupted" << diagnose();
  auto after = view();
  EXPECT_EQ(after.nodeclaim_names(), (std::set<std::string>{keep_claim, guarded_claim}))
      << diagnose();
  EXPECT_EQ(running_of(after, "keep"), 1);
  EXPECT_EQ(running_of(after, "guarded"), 1);
  EXPECT_EQ(leaks(after), "");

  bool keep_event = false, guarded_event = false;
  std::string seen;
  for (const auto& e : events()) {
    if (e.reason != "DisruptionBlocked") continue;
    seen += "\n  " + e.kind + "/" + e.name + ": " + e.message;
    if (e.kind == "Node" && e.name == keep_node &&
        e.message.find("karpenter.sh/do-not-disrupt") != std::string::npos &&
        e.message.find("default/keep-") != std::string::npos)
      keep_event = true;
    if (e.kind == "Node" && e.name == guarded_node &&
        e.message.find("PodDisruptionBudget default/guarded") != std::string::npos)
      guarded_event = true;
  }
  EXPECT_GE(metric("karpenter_proxmox_disruption_blocked_total"), 2);
  EXPECT_TRUE(keep_event) << "no DisruptionBlocked Event naming the do-not-disrupt pod on "
                          << keep_node << "; seen:" << seen;
  EXPECT_TRUE(guarded_event) << "no DisruptionBlocked Event naming the PDB on " << guarded_node
                             << "; seen:" << seen;
}

}  // namespace
}  // namespace kp::e2e::disruption
