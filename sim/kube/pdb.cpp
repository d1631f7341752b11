#include "sim/kube/pdb.hpp"

#include <cmath>
#include <set>

#include "sim/kube/json_util.hpp"
#include "sim/kube/selectors.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

bool pod_healthy(const json::object& pod) {
  if (has_deletion_timestamp(pod)) return false;
  if (string_at(pod, {"status", "phase"}) != "Running") return false;
  if (const auto* cs = array_at(pod, {"status", "conditions"}))
    for (const auto& c : *cs)
      if (c.is_object() && string_at(c.get_object(), {"type"}) == "Ready")
        return string_at(c.get_object(), {"status"}) == "True";
  return false;
}

namespace {

std::vector<object_ptr> selected_pods(const json::object& pdb, const object_store& store) {
  std::vector<object_ptr> out;
  auto sel = label_selector::from_object(object_at(pdb, {"spec", "selector"}));
  if (!sel) return out;
  std::string ns(meta_namespace(pdb));
  const auto* pods = store.objects("/pods");
  if (!pods) return out;
  for (auto it = pods->lower_bound(ns + "/"); it != pods->end(); ++it) {
    if (it->first.compare(0, ns.size() + 1, ns + "/") != 0) break;
    const auto& p = it->second->object;
    if (is_pod_terminal(p)) continue;
    if (sel.value().matches(object_at(p, {"metadata", "labels"}))) out.push_back(it->second);
  }
  return out;
}

// The intOrString value scaled against `total` (percentages round up, as the API does).
std::int64_t scaled(const json::value& v, std::int64_t total) {
  if (auto i = as_int(v)) return *i;
  if (v.is_string()) {
    std::string s(v.get_string());
    if (!s.empty() && s.back() == '%') {
      double pct = std::atof(s.c_str());
      return static_cast<std::int64_t>(std::ceil(pct * static_cast<double>(total) / 100.0));
    }
    return std::atoll(s.c_str());
  }
  return 0;
}

}  // namespace

pdb_numbers compute_pdb(const json::object& pdb, const object_store& store) {
  pdb_numbers n;
  auto pods = selected_pods(pdb, store);
  // Expected pods come from the owning controllers' replicas when every pod has one, so a pod
  // being replaced is still expected; otherwise from the pods themselves.
  std::set<std::string> owners;
  bool all_owned = !pods.empty();
  std::int64_t replicas = 0;
  for (const auto& p : pods) {
    if (pod_healthy(p->object)) ++n.current_healthy;
    const json::object* ctrl = nullptr;
    if (const auto* refs = array_at(p->object, {"metadata", "ownerReferences"}))
      for (const auto& r : *refs)
        if (r.is_object() && find_path(r.get_object(), {"controller"}) &&
            r.get_object().at("controller") == json::value(true))
          ctrl = &r.get_object();
    if (!ctrl) {
      all_owned = false;
      continue;
    }
    std::string uid(string_at(*ctrl, {"uid"}));
    if (owners.insert(uid).second) {
      auto owner = store.find_uid(uid);
      const auto* r = owner ? find_path(owner->object, {"spec", "replicas"}) : nullptr;
      if (!r)
        all_owned = false;
      else
        replicas += as_int(*r).value_or(0);
    }
  }
  if (all_owned) {
    n.expected_pods = replicas;
  } else {
    for (const auto& p : pods)
      if (!has_deletion_timestamp(p->object)) ++n.expected_pods;
  }
  const auto* spec = object_at(pdb, {"spec"});
  const json::value* min_available = spec ? spec->if_contains("minAvailable") : nullptr;
  const json::value* max_unavailable = spec ? spec->if_contains("maxUnavailable") : nullptr;
  if (min_available && !min_available->is_null()) {
    n.desired_healthy = scaled(*min_available, n.expected_pods);
  } else if (max_unavailable && !max_unavailable->is_null()) {
    n.desired_healthy =
        std::max<std::int64_t>(0, n.expected_pods - scaled(*max_unavailable, n.expected_pods));
  } else {
    n.desired_healthy = n.expected_pods;
  }
  n.disruptions_allowed = std::max<std::int64_t>(0, n.current_healthy - n.desired_healthy);
  return n;
}

api_result<json::object> evict_pod(operations& ops, std::string_view ns, std::string_view name,
                                   const json::value& body) {
  const auto* pods_type = ops.registry().find("", "v1", "pods");
  const auto* eviction = body.if_object();
  if (!eviction) return bad_request("the body of an eviction must be an Eviction object");
  auto body_name = string_at(*eviction, {"metadata", "name"});
  if (!body_name.empty() && body_name != name)
    return bad_request("name in URL does not match name in Eviction object");
  auto pod = ops.store().get("/pods", ns, name);
  if (!pod) return not_found("pods", "", std::string(name));
  delete_options del;
  if (const auto* d = object_at(*eviction, {"deleteOptions"})) {
    if (const auto* g = d->if_contains("gracePeriodSeconds")) del.grace_period_seconds = as_int(*g);
    del.precondition_uid = std::string(string_at(*d, {"preconditions", "uid"}));
    del.precondition_rv = std::string(string_at(*d, {"preconditions", "resourceVersion"}));
  }
  json::object success{{"kind", "Status"},
                       {"apiVersion", "v1"},
                       {"metadata", json::object{}},
                       {"status", "Success"},
                       {"code", 201}};
  const auto& p = pod->object;
  bool ignore_budget = is_pod_terminal(p) || has_deletion_timestamp(p) ||
                       string_at(p, {"status", "phase"}) == "Pending";
  if (!ignore_budget) {
    std::vector<object_ptr> budgets;
    if (const auto* pdbs = ops.store().objects("policy/poddisruptionbudgets")) {
      std::string prefix = std::string(ns) + "/";
      for (auto it = pdbs->lower_bound(prefix); it != pdbs->end(); ++it) {
        if (it->first.compare(0, prefix.size(), prefix) != 0) break;
        auto sel = label_selector::from_object(object_at(it->second->object, {"spec", "selector"}));
        if (sel && sel.value().matches(object_at(p, {"metadata", "labels"})))
          budgets.push_back(it->second);
      }
    }
    if (budgets.size() > 1)
      return internal_error(
          "This pod has more than one PodDisruptionBudget, which the eviction subresource does "
          "not support.");
    if (budgets.size() == 1) {
      const auto& pdb = budgets.front()->object;
      auto n = compute_pdb(pdb, ops.store());
      if (n.disruptions_allowed <= 0) {
        json::array causes{json::object{
            {"reason", "DisruptionBudget"},
            {"message", "The disruption budget " + std::string(meta_name(pdb)) + " needs " +
                            std::to_string(n.desired_healthy) + " healthy pods and has " +
                            std::to_string(n.current_healthy) + " currently"}}};
        return too_many_requests(
            "Cannot evict pod as it would violate the pod's disruption budget.", std::move(causes),
            0);
      }
      auto r = ops.remove(*pods_type, ns, name, del);
      if (!r) return r.error();
      json::object updated = pdb;
      auto& st = ensure_object(updated, "status");
      st["disruptionsAllowed"] = n.disruptions_allowed - 1;
      ensure_object(st, "disruptedPods")[name] = format_time(ops.now());
      if (const auto* pdb_type = ops.registry().find("policy", "v1", "poddisruptionbudgets"))
        ops.write(*pdb_type, std::move(updated));
      return success;
    }
  }
  auto r = ops.remove(*pods_type, ns, name, del);
  if (!r) return r.error();
  return success;
}

}  // namespace kp::sim::kube
