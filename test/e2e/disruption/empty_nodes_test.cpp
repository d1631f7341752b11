// Empty nodes go: once their pods are removed, every NodeClaim, Node and VM the controller made
// is removed by emptiness consolidation, and no VM is left behind.
#include "test/e2e/disruption/disruption_support.hpp"

namespace kp::e2e::disruption {
namespace {

class empty_nodes : public disruption_test {};

TEST_F(empty_nodes, nodesLeftEmptyAreRemovedWithTheirNodeClaimsAndVms) {
  KP_E2E_START(disruption_options());
  set_nodepool({});
  start_controller();
  replica_set({.name = "web", .replicas = 3, .cpu = "600m"});
  ASSERT_TRUE(wait_for(
      [](const cluster_view& v) { return v.running() == 3 && v.nodeclaims.size() == 3; }, 60s))
      << diagnose();
  ASSERT_EQ(view().vms.size(), 3u) << diagnose();

  const auto emptied = std::chrono::steady_clock::now();
  replica_set({.name = "web", .replicas = 0, .cpu = "600m"});
  ASSERT_TRUE(wait_for(
      [](const cluster_view& v) {
        return v.pods.empty() && v.nodeclaims.empty() && v.nodes.empty() && v.vms.empty();
      },
      60s))
      << "empty nodes were not removed" << diagnose();
  std::cout << "[ measure  ] 3 empty nodes removed in "
            << std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now() - emptied)
                   .count()
            << " ms\n";
  EXPECT_EQ(settled_leaks(), "");
  bool empty_event = false;
  for (const auto& e : events())
    empty_event =
        empty_event || (e.reason == "Disrupting" && e.message.find("Empty") != std::string::npos);
  EXPECT_TRUE(empty_event) << "no Disrupting Event for Empty";
  EXPECT_GE(metric("karpenter_voluntary_disruption_decisions_total"), 1);
  EXPECT_EQ(metric("karpenter_nodeclaims_disrupted_total"), 3);
}

}  // namespace
}  // namespace kp::e2e::disruption
