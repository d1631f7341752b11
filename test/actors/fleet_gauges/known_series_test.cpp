// The label values observability primes at start are the values the actors count under, and
// priming creates each series once at zero.
#include "observability/known_series.hpp"

#include <gtest/gtest.h>

#include <prometheus/registry.h>
#include <algorithm>

#include "actors/disruption/decision_labels.hpp"

namespace kp::obs {
namespace {

template <class Array>
bool contains(const Array& values, std::string_view v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

TEST(KnownSeries, everyBlockedCategoryTheDisruptionActorCountsIsPrimed) {
  // One reason text for each category blocked_category knows.
  const std::vector<std::string> reasons{"pod default/a has karpenter.sh/do-not-disrupt",
                                         "PodDisruptionBudget default/pdb allows no eviction",
                                         "disruption budget of NodePool general allows 0",
                                         "node is not ready",
                                         "stabilization window",
                                         "minimum node age not reached",
                                         "not enough headroom",
                                         "NodePool general is not known",
                                         "unhealthy nodes above the threshold",
                                         "anything else"};
  for (const auto& r : reasons) {
    const auto category = actors::disruption::blocked_category(r);
    EXPECT_TRUE(contains(disruption_block_reasons, category)) << r << " -> " << category;
  }
}

TEST(KnownSeries, everyConsolidationTypeAndDecisionReasonIsPrimed) {
  for (auto method : {"emptiness", "drift", "multi-node", "single-node", ""}) {
    const auto type = actors::disruption::consolidation_type(method);
    EXPECT_TRUE(contains(consolidation_types, type)) << method;
  }
  using kp::disruption::command_reason;
  for (auto r : {command_reason::empty, command_reason::drifted, command_reason::underutilized,
                 command_reason::expired}) {
    const auto label = actors::disruption::reason_label(r);
    EXPECT_TRUE(contains(nodeclaim_creation_reasons, label)) << label;
    EXPECT_TRUE(contains(nodeclaim_disruption_reasons, label)) << label;
  }
  for (const auto& kind : disruption_decision_kinds) {
    EXPECT_TRUE(contains(consolidation_types, kind.consolidation_type));
    EXPECT_TRUE(contains(nodeclaim_creation_reasons, kind.reason));
  }
}

TEST(KnownSeries, primingCreatesEachSeriesOnceAtZero) {
  prometheus::Registry registry;
  karpenter_metrics m(registry);
  prime_known_series(m);
  prime_known_series(m);
  const prometheus::Labels decision{
      {"decision", "replace"}, {"reason", "underutilized"}, {"consolidation_type", "multi"}};
  ASSERT_TRUE(m.disruption_decisions.Has(decision));
  EXPECT_EQ(m.disruption_decisions.Add(decision).Value(), 0);
  EXPECT_TRUE(m.disruption_blocked.Has({{"reason", "pdb"}}));
  EXPECT_TRUE(m.disruption_failed_validations.Has({{"consolidation_type", ""}}));
  std::size_t series = 0;
  for (const auto& family : registry.Collect())
    if (family.name == "karpenter_voluntary_disruption_decisions_total")
      series = family.metric.size();
  EXPECT_EQ(series, disruption_decisions.size() * disruption_decision_kinds.size());

  prime_nodepool_series(m, "general");
  EXPECT_TRUE(m.nodeclaims_created.Has(
      {{"reason", "provisioned"}, {"nodepool", "general"}, {"min_values_relaxed", "false"}}));
  EXPECT_TRUE(m.nodeclaims_registration_duration.Has({{"nodepool", "general"}}));
}

}  // namespace
}  // namespace kp::obs
