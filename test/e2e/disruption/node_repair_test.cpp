// A node whose Ready condition turns False is left alone while the NodeRepair feature gate is
// off, and is replaced (its NodeClaim deleted, its pod running again elsewhere) once it is on.
// Takes about 75 s: the drain waits a minute for the pod the dead kubelet never finishes.
#include "test/e2e/disruption/disruption_support.hpp"

namespace kp::e2e::disruption {
namespace {

class node_repair : public disruption_test {};

TEST_F(node_repair, aNotReadyNodeIsRepairedOnlyWithTheNodeRepairGate) {
  auto options = disruption_options();
  options.controller_settings["node-repair-toleration"] = "2s";
  KP_E2E_START(options);
  set_nodepool({.consolidate_after = "Never"});
  auto gate_off = start_controller({{"feature-gates", "NodeRepair=false"}});
  replica_set({.name = "app", .replicas = 1, .cpu = "600m"});
  ASSERT_TRUE(wait_for(
      [](const cluster_view& v) { return v.running() == 1 && v.nodeclaims.size() == 1; }, 60s))
      << diagnose();
  auto before = view();
  const auto claim = before.nodeclaims.begin()->first;
  const auto node = before.nodeclaims.begin()->second.node_name;
  auto r = world->kube().call(
      "POST", "/sim/v1/nodes/" + node + "/condition",
      R"({"type":"Ready","status":"False","reason":"KubeletNotReady","message":"e2e"})");
  ASSERT_TRUE(r.ok() && r->ok()) << (r.ok() ? r->body : r.error().message);
  ASSERT_TRUE(wait_for([&](const cluster_view& v) { return !v.nodes.at(node).ready; }, 5s));

  // Well past the toleration (2s) with the gate off: nothing happens.
  const bool repaired_without_gate = lab::lab_world::eventually(
      [&] {
        auto v = view();
        return v.nodeclaims.count(claim) == 0 || v.nodeclaims.at(claim).terminating;
      },
      6s);
  EXPECT_FALSE(repaired_without_gate) << "repaired with NodeRepair=false" << diagnose();

  world->stop_controller(gate_off);
  start_controller({{"feature-gates", "NodeRepair=true"}});
  const auto gated = std::chrono::steady_clock::now();
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        return v.nodeclaims.count(claim) == 0 || v.nodeclaims.at(claim).terminating;
      },
      30s))
      << "the NotReady node was not repaired with NodeRepair=true" << diagnose();
  std::cout << "[ measure  ] repair started "
            << std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now() - gated)
                   .count()
            << " ms after the controller with the gate started\n";
  // The pod runs again on a new node while the old one is still being drained.
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        const auto now = claim_of_pod(v, "app-");
        return running_of(v, "app") == 1 && !now.empty() && now != claim;
      },
      30s))
      << "the repaired node's pod does not run on a new node" << diagnose();
  // The old pod was evicted, but the kubelet of a NotReady node never finishes it: as in
  // Karpenter, the drain stops waiting for a pod stuck terminating for a minute past its
  // deletion timestamp, and only then are the Node, NodeClaim and VM removed.
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        return v.nodeclaims.count(claim) == 0 && v.nodes.count(node) == 0 &&
               v.vm_names() == v.nodeclaim_names();
      },
      120s))
      << "the repaired node was not removed" << diagnose();
  std::cout << "[ measure  ] repaired node removed "
            << std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now() - gated)
                   .count()
            << " ms after the controller with the gate started\n";
  EXPECT_EQ(settled_leaks(), "");
}

}  // namespace
}  // namespace kp::e2e::disruption
