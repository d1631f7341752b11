// limits.nodes on a NodePool: the controller stops at the limit, counting the nodes it has and
// the NodeClaims in flight, and the pod left over stays Pending with Karpenter's reason in a
// FailedScheduling Event that names the pool and the limit.
#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

class node_limit : public e2e_test {};

TEST_F(node_limit, limitsNodesOfTwoStopsTheThirdNodeAndThePodSaysWhy) {
  auto options = e2e_options();
  options.nodepool_node_limit = "2";
  KP_E2E_START(options);
  start_controller();
  // Three pods that each need a node of their own.
  scale("port", 3, {.cpu = "250m", .memory = "256Mi", .own_node = true});

  std::string why;
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        why = controller_event("FailedScheduling", "port-");
        return v.running() == 2 && why.find("node limits") != std::string::npos;
      },
      60s))
      << "event: \"" << why << "\"\n"
      << diagnose();
  EXPECT_NE(why.find("NodePool \"default\""), std::string::npos) << why;
  EXPECT_NE(why.find("node limits have been exhausted for nodepool"), std::string::npos) << why;
  EXPECT_NE(why.find("limits.nodes: 2"), std::string::npos) << why;
  // It stays at two: no third NodeClaim appears while the pod waits.
  EXPECT_FALSE(wait_for([](const cluster_view& v) { return v.nodeclaims.size() > 2; }, 5s))
      << diagnose();
  auto v = view();
  EXPECT_EQ(v.nodeclaims.size(), 2u) << diagnose();
  long pending = 0;
  for (const auto& p : v.pods)
    if (p.name.rfind("port-", 0) == 0 && p.phase == "Pending") ++pending;
  EXPECT_EQ(pending, 1) << diagnose();
}

}  // namespace
}  // namespace kp::e2e
