#include "actors/nodepool_status/nodepool_status_plan.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <set>

#include "actors/status_conditions.hpp"
#include "core/model/labels.hpp"
#include "protocol/kube/drift_hash.hpp"
#include "protocol/kube/model_translation.hpp"
#include "protocol/kube/patches.hpp"

namespace kp::actors::nodepool_status {
namespace {

constexpr const char* node_class_ready = "NodeClassReady";
constexpr const char* validation_succeeded = "ValidationSucceeded";
constexpr const char* ready = "Ready";

bool restricted_key(const std::string& key) {
  if (key == model::labels::capacity_type) return false;
  if (key == model::labels::nodepool || key == model::labels::hostname) return true;
  const auto slash = key.find('/');
  if (slash == std::string::npos) return false;
  const auto domain = key.substr(0, slash);
  return domain == "karpenter.sh" ||
         (domain.size() > 13 && domain.compare(domain.size() - 13, 13, ".karpenter.sh") == 0);
}

bool non_negative_integer(const std::string& s) {
  return !s.empty() && s.size() <= 18 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

kube::condition make_condition(const kube::node_pool& pool, const std::string& type,
                               const std::string& status, condition_reason reason,
                               const std::string& message, std::int64_t now_ms) {
  return next_condition(pool.status.conditions, type, status, reason, message,
                        pool.metadata.generation, kube::format_rfc3339(now_ms));
}

bool same_resources(const kube::resource_list& a, const kube::resource_list& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [name, text] : a) {
    auto it = b.find(name);
    if (it == b.end()) return false;
    if (text == it->second) continue;
    auto qa = model::parse_quantity(text);
    auto qb = model::parse_quantity(it->second);
    if (!qa || !qb || !(*qa == *qb)) return false;
  }
  return true;
}

bool same_condition(const kube::condition& a, const kube::condition& b) {
  return a.type == b.type && a.status == b.status && a.reason == b.reason &&
         a.message == b.message && a.observed_generation == b.observed_generation;
}

}  // namespace

bool is_managed(const kube::node_pool& pool) {
  const auto& ref = pool.spec.template_.spec.node_class_ref;
  return ref.kind == nodeclass_kind && (ref.group.empty() || ref.group == nodeclass_group);
}

pool_usage usage_of(const std::string& pool, const protocol::cluster_snapshot& snapshot) {
  pool_usage u;
  std::set<std::string> claimed_nodes, claimed_provider_ids;
  auto add = [&u](const kube::resource_list& capacity) {
    ++u.nodes;
    auto parsed = model::parse_resource_list(capacity);
    if (parsed) u.resources += *parsed;
  };
  const std::string label(model::labels::nodepool);
  if (snapshot.node_claims) {
    for (const auto& [key, claim] : *snapshot.node_claims) {
      auto it = claim->metadata.labels.find(label);
      if (it == claim->metadata.labels.end() || it->second != pool) continue;
      const kube::node* node = nullptr;
      if (!claim->status.node_name.empty()) {
        node = protocol::cluster_snapshot::find(snapshot.nodes, claim->status.node_name);
        claimed_nodes.insert(claim->status.node_name);
      }
      if (!claim->status.provider_id.empty())
        claimed_provider_ids.insert(claim->status.provider_id);
      add(node ? node->status.capacity : claim->status.capacity);
    }
  }
  if (snapshot.nodes) {
    for (const auto& [key, node] : *snapshot.nodes) {
      auto it = node->metadata.labels.find(label);
      if (it == node->metadata.labels.end() || it->second != pool) continue;
      if (claimed_nodes.count(node->metadata.name)) continue;
      if (!node->spec.provider_id.empty() && claimed_provider_ids.count(node->spec.provider_id))
        continue;
      add(node->status.capacity);
    }
  }
  u.resources.set(model::resource_names::nodes, model::quantity::from_units(u.nodes));
  return u;
}

std::vector<std::string> validate(const kube::node_pool& pool) {
  std::vector<std::string> problems;
  const auto& t = pool.spec.template_;
  for (const auto& [key, value] : t.metadata.labels) {
    if (restricted_key(key)) problems.push_back("label " + key + " is restricted");
  }
  static const std::set<std::string> operators = {"In", "NotIn", "Exists", "DoesNotExist",
                                                  "Gt", "Lt",    "Gte",    "Lte"};
  for (const auto& r : t.spec.requirements) {
    if (restricted_key(r.key)) problems.push_back("requirement key " + r.key + " is restricted");
    if (!operators.count(r.operator_)) {
      problems.push_back("requirement " + r.key + " has unknown operator " + r.operator_);
      continue;
    }
    if (r.operator_ == "In" && r.values.empty())
      problems.push_back("requirement " + r.key + " with In needs at least one value");
    if ((r.operator_ == "Gt" || r.operator_ == "Lt" || r.operator_ == "Gte" ||
         r.operator_ == "Lte") &&
        (r.values.size() != 1 || !non_negative_integer(r.values.front())))
      problems.push_back("requirement " + r.key + " with " + r.operator_ +
                         " needs one non-negative integer");
    if ((r.operator_ == "Exists" || r.operator_ == "DoesNotExist") && !r.values.empty())
      problems.push_back("requirement " + r.key + " with " + r.operator_ + " takes no values");
    if (r.min_values) {
      if (*r.min_values < 1 || *r.min_values > 50)
        problems.push_back("requirement " + r.key + " minValues must be within 1..50");
      else if (r.operator_ == "In" && static_cast<std::int64_t>(r.values.size()) < *r.min_values)
        problems.push_back("requirement " + r.key + " has fewer values than minValues");
    }
  }
  static const std::set<std::string> effects = {"NoSchedule", "PreferNoSchedule", "NoExecute"};
  for (const auto* list : {&t.spec.taints, &t.spec.startup_taints}) {
    for (const auto& taint : *list) {
      if (taint.key.empty()) problems.push_back("a taint has no key");
      if (!effects.count(taint.effect))
        problems.push_back("taint " + taint.key + " has invalid effect " + taint.effect);
    }
  }
  if (pool.spec.weight && (*pool.spec.weight < 1 || *pool.spec.weight > 100))
    problems.push_back("weight must be within 1..100");
  return problems;
}

kube::node_pool_status desired_status(const kube::node_pool& pool,
                                      const protocol::cluster_snapshot& snapshot,
                                      std::int64_t now_unix_ms) {
  kube::node_pool_status s;
  auto usage = usage_of(pool.metadata.name, snapshot);
  for (const auto& [name, q] : usage.resources.items()) s.resources[name] = model::to_string(q);
  s.nodes = usage.nodes;
  s.node_class_observed_generation = pool.status.node_class_observed_generation;

  // NodeClassReady follows the ProxmoxNodeClass's Ready condition.
  kube::condition nc;
  const auto* cls = protocol::cluster_snapshot::find(snapshot.node_classes,
                                                     pool.spec.template_.spec.node_class_ref.name);
  if (cls == nullptr) {
    nc = make_condition(pool, node_class_ready, "False", "NodeClassNotFound",
                        "NodeClass not found on cluster", now_unix_ms);
  } else {
    s.node_class_observed_generation = cls->metadata.generation;
    const auto* r = find_condition(cls->status.conditions, "Ready");
    if (cls->metadata.deletion_timestamp) {
      nc = make_condition(pool, node_class_ready, "False", "NodeClassTerminating",
                          "NodeClass is terminating", now_unix_ms);
    } else if (r == nullptr || r->status == "Unknown" || r->status.empty()) {
      nc = make_condition(pool, node_class_ready, "Unknown", "NodeClassReadinessUnknown",
                          "Node Class Readiness Unknown", now_unix_ms);
    } else if (r->status == "True") {
      nc = make_condition(pool, node_class_ready, "True", node_class_ready, "", now_unix_ms);
    } else {
      nc = make_condition(pool, node_class_ready, "False", "NodeClassNotReady",
                          "NodeClass is not ready", now_unix_ms);
    }
  }

  kube::condition vs;
  auto problems = validate(pool);
  if (problems.empty()) {
    vs = make_condition(pool, validation_succeeded, "True", validation_succeeded, "", now_unix_ms);
  } else {
    std::string message;
    for (const auto& p : problems) message += (message.empty() ? "" : "; ") + p;
    vs = make_condition(pool, validation_succeeded, "False", "NodePoolValidationFailed", message,
                        now_unix_ms);
  }

  // Ready is the conjunction: False when a dependent is False, Unknown when one is Unknown.
  kube::condition rd;
  std::string unhealthy;
  bool any_false = false;
  for (const auto* c : {&nc, &vs}) {
    if (c->status == "True") continue;
    any_false = any_false || c->status == "False";
    unhealthy += (unhealthy.empty() ? "" : ", ") + c->type + "=" + c->status;
  }
  if (unhealthy.empty()) {
    rd = make_condition(pool, ready, "True", ready, "", now_unix_ms);
  } else {
    rd = make_condition(pool, ready, any_false ? "False" : "Unknown", "UnhealthyDependents",
                        unhealthy, now_unix_ms);
  }

  for (const auto& c : pool.status.conditions) {
    if (c.type != node_class_ready && c.type != validation_succeeded && c.type != ready)
      s.conditions.push_back(c);
  }
  s.conditions.push_back(nc);
  s.conditions.push_back(vs);
  s.conditions.push_back(rd);
  return s;
}

bool equivalent(const kube::node_pool_status& a, const kube::node_pool_status& b) {
  if (a.nodes != b.nodes || a.node_class_observed_generation != b.node_class_observed_generation)
    return false;
  if (!same_resources(a.resources, b.resources)) return false;
  if (a.conditions.size() != b.conditions.size()) return false;
  for (const auto& c : a.conditions) {
    const auto* other = find_condition(b.conditions, c.type);
    if (other == nullptr || !same_condition(c, *other)) return false;
  }
  return true;
}

std::string status_patch(const kube::node_pool_status& current,
                         const kube::node_pool_status& desired) {
  namespace bj = boost::json;
  bj::object resources;
  for (const auto& [name, text] : desired.resources) resources[name] = text;
  for (const auto& [name, text] : current.resources)
    if (!desired.resources.count(name)) resources[name] = nullptr;
  bj::object status;
  status["resources"] = std::move(resources);
  status["nodes"] = desired.nodes;
  status["nodeClassObservedGeneration"] = desired.node_class_observed_generation;
  return kube::conditions_status_merge_patch(desired.conditions, std::move(status));
}

std::string hash_patch(const kube::node_pool& pool) {
  return kube::annotations_merge_patch(
      {{std::string(model::annotations::nodepool_hash), kube::nodepool_hash(pool)},
       {std::string(model::annotations::nodepool_hash_version),
        std::string(model::drift_hash_versions::nodepool)}},
      {});
}

}  // namespace kp::actors::nodepool_status
