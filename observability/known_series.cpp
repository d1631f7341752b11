#include "observability/known_series.hpp"

namespace kp::obs {

void prime_known_series(karpenter_metrics& m) {
  for (auto decision : disruption_decisions) {
    for (const auto& kind : disruption_decision_kinds) {
      m.disruption_decisions.Add({{"decision", std::string(decision)},
                                  {"reason", std::string(kind.reason)},
                                  {"consolidation_type", std::string(kind.consolidation_type)}});
    }
  }
  for (auto type : consolidation_types)
    m.disruption_failed_validations.Add({{"consolidation_type", std::string(type)}});
  for (auto reason : disruption_block_reasons)
    m.disruption_blocked.Add({{"reason", std::string(reason)}});
}

void prime_nodepool_series(karpenter_metrics& m, const std::string& nodepool) {
  for (auto reason : nodeclaim_creation_reasons) {
    m.nodeclaims_created.Add(
        {{"reason", std::string(reason)}, {"nodepool", nodepool}, {"min_values_relaxed", "false"}});
  }
  for (auto reason : nodeclaim_disruption_reasons) {
    m.nodeclaims_disrupted.Add({{"reason", std::string(reason)},
                                {"nodepool", nodepool},
                                {"capacity_type", std::string(default_capacity_type)}});
  }
  const prometheus::Labels pool{{"nodepool", nodepool}};
  m.nodeclaims_launch_duration.Add(pool, duration_buckets());
  m.nodeclaims_registration_duration.Add(pool, duration_buckets());
  m.nodeclaims_initialization_duration.Add(pool, duration_buckets());
}

}  // namespace kp::obs
