// Three nodes left mostly empty merge into one: with WhenEmptyOrUnderutilized, multi-node
// consolidation deletes two of them and their pods run on the third.
#include "test/e2e/disruption/disruption_support.hpp"

namespace kp::e2e::disruption {
namespace {

class consolidation : public disruption_test {};

TEST_F(consolidation, threeUnderusedNodesMergeIntoOne) {
  KP_E2E_START(disruption_options());
  set_nodepool({.policy = "WhenEmptyOrUnderutilized"});
  start_controller();
  // Three full nodes, then three 250m pods: each fits only beside one 600m pod, one per node.
  replica_set({.name = "big", .replicas = 3, .cpu = "600m"});
  ASSERT_TRUE(wait_for(
      [](const cluster_view& v) { return v.running() == 3 && v.nodeclaims.size() == 3; }, 60s))
      << diagnose();
  replica_set({.name = "small", .replicas = 3});
  ASSERT_TRUE(wait_for([](const cluster_view& v) { return v.running() == 6; }, 30s)) << diagnose();
  auto before = view();
  std::set<std::string> small_nodes;
  for (const auto& p : before.pods)
    if (p.name.rfind("small-", 0) == 0) small_nodes.insert(p.node);
  ASSERT_EQ(small_nodes.size(), 3u) << diagnose();

  const auto emptied = std::chrono::steady_clock::now();
  replica_set({.name = "big", .replicas = 0, .cpu = "600m"});
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        if (v.nodeclaims.size() != 1 || v.vms.size() != 1 || running_of(v, "small") != 3)
          return false;
        const auto& survivor = v.nodeclaims.begin()->second.node_name;
        for (const auto& p : v.pods)
          if (p.name.rfind("small-", 0) == 0 && p.node != survivor) return false;
        return true;
      },
      90s))
      << "the three nodes did not merge into one" << diagnose();
  std::cout << "[ measure  ] 3 nodes merged into 1 in "
            << std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now() - emptied)
                   .count()
            << " ms\n";
  auto after = view();
  EXPECT_TRUE(before.nodeclaims.count(after.nodeclaims.begin()->first))
      << "the survivor is a new node, not one of the three" << diagnose();
  EXPECT_EQ(leaks(after), "");
}

}  // namespace
}  // namespace kp::e2e::disruption
