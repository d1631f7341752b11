#include <stdexcept>

#include "sim/kube/controllers/controller.hpp"
#include "sim/kube/json_util.hpp"
#include "sim/kube/selectors.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

const resource_type& builtin_type(operations& ops, const char* group, const char* plural) {
  const auto* t = ops.registry().find_any_version(group, plural);
  if (!t) throw std::logic_error(std::string("built-in resource missing: ") + plural);
  return *t;
}

std::string condition_status(const json::object& o, std::string_view type) {
  if (const auto* cs = array_at(o, {"status", "conditions"}))
    for (const auto& c : *cs)
      if (c.is_object() && string_at(c.get_object(), {"type"}) == type)
        return std::string(string_at(c.get_object(), {"status"}));
  return {};
}

void set_condition(json::object& o, std::string_view type, std::string_view status,
                   std::string_view reason, std::string_view message, const std::string& now) {
  auto& conds = ensure_array(ensure_object(o, "status"), "conditions");
  for (auto& c : conds) {
    if (!c.is_object() || string_at(c.get_object(), {"type"}) != type) continue;
    auto& co = c.get_object();
    if (string_at(co, {"status"}) != status) co["lastTransitionTime"] = now;
    co["status"] = status;
    co["reason"] = reason;
    co["message"] = message;
    return;
  }
  conds.push_back(json::object{{"type", type},
                               {"status", status},
                               {"reason", reason},
                               {"message", message},
                               {"lastTransitionTime", now}});
}

bool tolerates(const json::object& pod, const json::object& taint) {
  auto key = string_at(taint, {"key"});
  auto value = string_at(taint, {"value"});
  auto effect = string_at(taint, {"effect"});
  const auto* tols = array_at(pod, {"spec", "tolerations"});
  if (!tols) return false;
  for (const auto& tv : *tols) {
    const auto* t = tv.if_object();
    if (!t) continue;
    auto tkey = string_at(*t, {"key"});
    auto op = string_at(*t, {"operator"});
    auto teffect = string_at(*t, {"effect"});
    if (!teffect.empty() && teffect != effect) continue;
    if (tkey.empty()) {
      if (op == "Exists") return true;
      continue;
    }
    if (tkey != key) continue;
    if (op == "Exists" || string_at(*t, {"value"}) == value) return true;
  }
  return false;
}

bool node_affinity_matches(const json::object& pod, const json::object& node) {
  const auto* labels = object_at(node, {"metadata", "labels"});
  if (const auto* sel = object_at(pod, {"spec", "nodeSelector"}))
    for (const auto& kv : *sel) {
      const auto* v = labels ? labels->if_contains(kv.key()) : nullptr;
      if (!v || !v->is_string() || !kv.value().is_string() ||
          v->get_string() != kv.value().get_string())
        return false;
    }
  const auto* terms =
      array_at(pod, {"spec", "affinity", "nodeAffinity",
                     "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"});
  if (!terms) return true;
  for (const auto& tv : *terms) {
    const auto* term = tv.if_object();
    if (!term) continue;
    const auto* exprs = array_at(*term, {"matchExpressions"});
    const auto* fields = array_at(*term, {"matchFields"});
    if ((!exprs || exprs->empty()) && (!fields || fields->empty())) continue;
    bool ok = true;
    if (exprs) ok = label_selector::from_node_requirements(*exprs).matches(labels);
    if (ok && fields) {
      json::object name_label{{"metadata.name", meta_name(node)}};
      ok = label_selector::from_node_requirements(*fields).matches(&name_label);
    }
    if (ok) return true;
  }
  return false;
}

}  // namespace kp::sim::kube
