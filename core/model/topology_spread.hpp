#pragma once
// Pod topology spread constraints.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/label_selector.hpp"

namespace kp::model {

enum class when_unsatisfiable : std::uint8_t { do_not_schedule, schedule_anyway };
// nodeAffinityPolicy defaults to Honor, nodeTaintsPolicy to Ignore (Kubernetes defaults).
enum class inclusion_policy : std::uint8_t { honor, ignore };

struct topology_spread_constraint {
  std::int32_t max_skew = 1;
  std::string topology_key;
  when_unsatisfiable when = when_unsatisfiable::do_not_schedule;
  std::optional<label_selector> selector;  // absent selects no pods
  std::optional<std::int32_t> min_domains;
  inclusion_policy node_affinity_policy = inclusion_policy::honor;
  inclusion_policy node_taints_policy = inclusion_policy::ignore;
  std::vector<std::string> match_label_keys;
  friend bool operator==(const topology_spread_constraint&,
                         const topology_spread_constraint&) = default;
};

}  // namespace kp::model
