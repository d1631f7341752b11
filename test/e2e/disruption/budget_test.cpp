// A disruption budget of 30% on a pool of 10 empty nodes lets at most 3 of them be disrupted at
// any moment; all 10 go in the end.
#include <algorithm>

#include "test/e2e/disruption/disruption_support.hpp"

namespace kp::e2e::disruption {
namespace {

class budget : public disruption_test {};

TEST_F(budget, aThirtyPercentBudgetDisruptsAtMostThreeOfTenEmptyNodesAtOnce) {
  KP_E2E_START(disruption_options());
  set_nodepool({.budgets = {"30%"}});
  start_controller();
  replica_set({.name = "big", .replicas = 10, .cpu = "600m"});
  ASSERT_TRUE(wait_for(
      [](const cluster_view& v) { return v.running() == 10 && v.nodeclaims.size() == 10; }, 120s))
      << diagnose();

  const auto emptied = std::chrono::steady_clock::now();
  replica_set({.name = "big", .replicas = 0, .cpu = "600m"});
  std::size_t most = 0;
  std::vector<std::string> at_most;
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        auto now = disrupting(v);
        if (now.size() > most) {
          most = now.size();
          at_most = now;
        }
        return v.nodeclaims.empty() && v.vms.empty();
      },
      120s))
      << "the empty nodes were not all removed; at most " << most << " at once" << diagnose();
  std::cout << "[ measure  ] 10 empty nodes removed in "
            << std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now() - emptied)
                   .count()
            << " ms, at most " << most << " disrupted at once\n";
  std::string names;
  for (const auto& n : at_most) names += " " + n;
  EXPECT_LE(most, 3u) << "disrupted at once:" << names;
  // The budget is used, not merely respected by going one at a time.
  EXPECT_GE(most, 2u);
  EXPECT_EQ(settled_leaks(), "");
}

}  // namespace
}  // namespace kp::e2e::disruption
