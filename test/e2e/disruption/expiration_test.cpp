// A node older than its NodePool's expireAfter is deleted and its pod runs again on a new node.
#include "test/e2e/disruption/disruption_support.hpp"

namespace kp::e2e::disruption {
namespace {

class expiration : public disruption_test {};

TEST_F(expiration, anExpiredNodeIsReplacedAndItsPodsRunAgain) {
  KP_E2E_START(disruption_options());
  set_nodepool({.consolidate_after = "Never", .expire_after = "10s"});
  start_controller();
  replica_set({.name = "app", .replicas = 1, .cpu = "600m"});
  ASSERT_TRUE(wait_for(
      [](const cluster_view& v) { return v.running() == 1 && v.nodeclaims.size() == 1; }, 60s))
      << diagnose();
  const auto first = view().nodeclaims.begin()->first;
  const auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        const auto claim = claim_of_pod(v, "app-");
        return v.nodeclaims.count(first) == 0 && running_of(v, "app") == 1 && !claim.empty() &&
               claim != first;
      },
      60s))
      << "NodeClaim " << first << " did not expire into a replacement" << diagnose();
  std::cout << "[ measure  ] expired node replaced "
            << std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now() - started)
                   .count()
            << " ms after its pod ran (expireAfter 10s)\n";
  bool expired_event = false;
  for (const auto& e : events())
    expired_event = expired_event || (e.name == first && e.reason == "DisruptionTerminating" &&
                                      e.message.find("Expired") != std::string::npos);
  EXPECT_TRUE(expired_event) << "no DisruptionTerminating Event for Expired on " << first;
  EXPECT_GE(metric("karpenter_nodeclaims_disrupted_total"), 1);
  EXPECT_EQ(settled_leaks(), "");
}

}  // namespace
}  // namespace kp::e2e::disruption
