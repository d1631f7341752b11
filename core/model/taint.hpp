#pragma once
// Taints and tolerations with Kubernetes matching rules.
#include <optional>
#include <string>
#include <vector>

namespace kp::model {

namespace taint_effects {
inline constexpr const char* no_schedule = "NoSchedule";
inline constexpr const char* prefer_no_schedule = "PreferNoSchedule";
inline constexpr const char* no_execute = "NoExecute";
}  // namespace taint_effects

struct taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule or NoExecute
  friend bool operator==(const taint&, const taint&) = default;
};

struct toleration {
  std::string key;  // empty with operator Exists tolerates every taint
  std::string op;   // "Equal" (the default when empty) or "Exists"
  std::string value;
  std::string effect;  // empty tolerates every effect
  std::optional<std::int64_t> toleration_seconds;
  friend bool operator==(const toleration&, const toleration&) = default;
};

// Kubernetes ToleratesTaint: effect matches (or is empty), key matches (or is empty with
// Exists), and for Equal the values match.
bool tolerates(const toleration& t, const taint& taint);
bool tolerates_taint(const std::vector<toleration>& tolerations, const taint& taint);
// The first taint with effect NoSchedule or NoExecute that no toleration matches, or null.
// PreferNoSchedule taints never block.
const taint* first_untolerated(const std::vector<toleration>& tolerations,
                               const std::vector<taint>& taints);

}  // namespace kp::model
