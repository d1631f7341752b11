#include "core/model/taint.hpp"

namespace kp::model {

bool tolerates(const toleration& t, const taint& taint) {
  if (!t.effect.empty() && t.effect != taint.effect) return false;
  if (t.op == "Exists") return t.key.empty() || t.key == taint.key;
  if (t.key != taint.key) return false;
  return (t.op.empty() || t.op == "Equal") && t.value == taint.value;
}

bool tolerates_taint(const std::vector<toleration>& tolerations, const taint& taint) {
  for (const auto& t : tolerations)
    if (tolerates(t, taint)) return true;
  return false;
}

const taint* first_untolerated(const std::vector<toleration>& tolerations,
                               const std::vector<taint>& taints) {
  for (const auto& t : taints) {
    if (t.effect == taint_effects::prefer_no_schedule) continue;
    if (!tolerates_taint(tolerations, t)) return &t;
  }
  return nullptr;
}

}  // namespace kp::model
