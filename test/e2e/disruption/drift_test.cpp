// A change of the NodePool's template (a new label) drifts every node: they are rolled onto
// replacements, never more than the budget (1 node) at once, and the pods run again.
#include "test/e2e/disruption/disruption_support.hpp"

namespace kp::e2e::disruption {
namespace {

class drift : public disruption_test {};

TEST_F(drift, aTemplateChangeRollsEveryNodeWithinTheBudget) {
  KP_E2E_START(disruption_options());
  nodepool_shape pool{.budgets = {"1"}};
  set_nodepool(pool);
  start_controller();
  replica_set({.name = "big", .replicas = 3, .cpu = "600m"});
  ASSERT_TRUE(wait_for(
      [](const cluster_view& v) { return v.running() == 3 && v.nodeclaims.size() == 3; }, 60s))
      << diagnose();
  const auto original = view().nodeclaim_names();

  const auto changed = std::chrono::steady_clock::now();
  pool.labels["rollout"] = "v2";
  set_nodepool(pool);
  std::size_t most = 0;
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        most = std::max(most, disrupting(v).size());
        for (const auto& [name, _] : v.nodeclaims)
          if (original.count(name)) return false;
        return v.nodeclaims.size() == 3 && running_of(v, "big") == 3 &&
               v.vm_names() == v.nodeclaim_names();
      },
      150s))
      << "the drifted nodes were not all replaced; at most " << most << " at once" << diagnose();
  std::cout << "[ measure  ] 3 drifted nodes rolled in "
            << std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now() - changed)
                   .count()
            << " ms, at most " << most << " disrupted at once\n";
  EXPECT_EQ(most, 1u) << "the budget of 1 node was exceeded";
  EXPECT_EQ(settled_leaks(), "");
  bool drift_event = false;
  for (const auto& e : events())
    drift_event =
        drift_event || (e.reason == "Disrupting" && e.message.find("Drifted") != std::string::npos);
  EXPECT_TRUE(drift_event) << "no Disrupting Event for Drifted";
}

}  // namespace
}  // namespace kp::e2e::disruption
