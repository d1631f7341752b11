// The disruption controller: keeps each PodDisruptionBudget's status (expectedPods,
// currentHealthy, desiredHealthy, disruptionsAllowed and the DisruptionAllowed condition) true
// to the pods it selects, and forgets disruptedPods entries whose pods are gone.
#include "sim/kube/controllers/controller.hpp"
#include "sim/kube/json_util.hpp"
#include "sim/kube/pdb.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {

class disruption_controller final : public controller {
 public:
  const char* name() const override { return "disruption"; }

  void reconcile(controller_context& ctx) override {
    const auto* pdbs = ctx.ops.store().objects("policy/poddisruptionbudgets");
    if (!pdbs || pdbs->empty()) return;
    std::vector<object_ptr> all;
    for (const auto& [k, p] : *pdbs) all.push_back(p);
    const auto& type = builtin_type(ctx.ops, "policy", "poddisruptionbudgets");
    auto now = format_time(ctx.now);
    for (const auto& p : all) {
      auto n = compute_pdb(p->object, ctx.ops.store());
      json::object next = p->object;
      auto& st = ensure_object(next, "status");
      st["expectedPods"] = n.expected_pods;
      st["currentHealthy"] = n.current_healthy;
      st["desiredHealthy"] = n.desired_healthy;
      st["disruptionsAllowed"] = n.disruptions_allowed;
      if (const auto* g = find_path(p->object, {"metadata", "generation"}))
        st["observedGeneration"] = *g;
      if (auto* dp = st.if_contains("disruptedPods"); dp && dp->is_object()) {
        json::object kept;
        for (const auto& kv : dp->get_object()) {
          auto pod = ctx.ops.store().get("/pods", meta_namespace(p->object), kv.key());
          if (pod && !has_deletion_timestamp(pod->object)) kept[kv.key()] = kv.value();
        }
        if (kept.empty())
          st.erase("disruptedPods");
        else
          st["disruptedPods"] = std::move(kept);
      }
      if (n.disruptions_allowed > 0)
        set_condition(next, "DisruptionAllowed", "True", "SufficientPods", "", now);
      else
        set_condition(next, "DisruptionAllowed", "False", "InsufficientPods", "", now);
      ctx.ops.write(type, std::move(next));
    }
  }
};

}  // namespace

std::unique_ptr<controller> make_disruption_controller() {
  return std::make_unique<disruption_controller>();
}

}  // namespace kp::sim::kube
