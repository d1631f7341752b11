#include "sim/kube/test_controls.hpp"

#include <optional>

#include "sim/kube/controllers/controller.hpp"
#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {
std::int64_t int_field(const json::value& body, const char* key, std::int64_t fallback) {
  if (!body.is_object()) return fallback;
  const auto* v = body.get_object().if_contains(key);
  return v ? as_int(*v).value_or(fallback) : fallback;
}
// Bulk load: each item is created as a POST would create it (names, uids, defaults, schema);
// an item's status is then written as a status update would write it. Big worlds load in
// seconds instead of one HTTPS round trip per object. Stops at the first refusal.
api_result<json::object> load_objects(operations& ops, const json::value& body) {
  const auto* items = body.is_object() ? array_at(body.get_object(), {"items"}) : nullptr;
  if (items == nullptr) return bad_request("objects need {\"items\": [...]}");
  user_info admin{"kube-sim:bulk-load", "", {"system:masters"}};
  std::int64_t created = 0;
  for (const auto& item : *items) {
    if (!item.is_object())
      return bad_request("objects: item " + std::to_string(created) + " is not an object");
    json::object object = item.get_object();
    std::string api_version(string_at(object, {"apiVersion"}));
    std::string kind(string_at(object, {"kind"}));
    auto slash = api_version.find('/');
    std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
    const auto* type = ops.registry().find_kind(group, kind);
    if (type == nullptr)
      return bad_request("objects: item " + std::to_string(created) + ": no resource serves " +
                         api_version + " " + kind);
    std::optional<json::value> status;
    if (auto* st = object.if_contains("status"); st != nullptr && type->has_status) status = *st;
    std::string ns(meta_namespace(object));
    write_options wo;
    auto stored = ops.create(*type, ns, std::move(object), admin, wo);
    if (!stored) return stored.error();
    if (status) {
      json::object next = stored.value()->object;
      next["status"] = std::move(*status);
      write_options so;
      auto name = std::string(meta_name(next));
      auto updated = ops.update(*type, ns, name, std::move(next), write_scope::status, so);
      if (!updated) return updated.error();
    }
    ++created;
  }
  return json::object{{"created", created}};
}

}  // namespace

api_result<json::object> handle_test_control(control_targets& t, const std::string& method,
                                             std::string_view path, const json::value& body) {
  std::string p(path);
  auto ok = [] { return json::object{{"status", "ok"}}; };
  if (method == "GET" && p == "/sim/v1/stats") {
    json::object controllers;
    for (const auto& [name, on] : t.enabled) controllers[name] = on;
    json::object by_method;
    for (const auto& [name, count] : t.requests_by_method) by_method[name] = count;
    return json::object{{"resourceVersion", t.ops.store().current_rv()},
                        {"objects", t.ops.store().size()},
                        {"watches", t.hub.watch_count()},
                        {"compactedResourceVersion", t.hub.compacted_rv()},
                        {"requests", t.requests_served},
                        {"requestsByMethod", by_method},
                        {"controllers", controllers}};
  }
  if (method != "POST")
    return method_not_allowed("test controls take POST (GET for /sim/v1/stats)");
  if (p == "/sim/v1/watches/drop") {
    t.hub.drop_all();
    return ok();
  }
  if (p == "/sim/v1/expire") {
    t.hub.force_expired(static_cast<int>(int_field(body, "count", 1)));
    return ok();
  }
  if (p == "/sim/v1/history") {
    auto limit = int_field(body, "limit", -1);
    if (limit < 0) return bad_request("history needs {\"limit\": N}");
    t.hub.set_history_limit(static_cast<std::size_t>(limit));
    return ok();
  }
  const std::string nodes_prefix = "/sim/v1/nodes/";
  if (p.rfind(nodes_prefix, 0) == 0 && p.size() > nodes_prefix.size() + 10 &&
      p.substr(p.size() - 10) == "/condition") {
    std::string name = p.substr(nodes_prefix.size(), p.size() - nodes_prefix.size() - 10);
    if (!body.is_object()) return bad_request("condition needs a JSON object body");
    const auto& b = body.get_object();
    std::string type(string_at(b, {"type"}));
    std::string status(string_at(b, {"status"}));
    if (type.empty() || (status != "True" && status != "False" && status != "Unknown"))
      return bad_request("condition needs type and status True|False|Unknown");
    auto node = t.ops.store().get("/nodes", "", name);
    if (!node) return not_found("nodes", "", name);
    json::object next = node->object;
    auto reason = string_at(b, {"reason"});
    set_condition(next, type, status, reason.empty() ? "SimulatedCondition" : reason,
                  string_at(b, {"message"}), format_time(t.ops.now()));
    auto stored = t.ops.write(builtin_type(t.ops, "", "nodes"), std::move(next));
    return stored->object;
  }
  if (p == "/sim/v1/tokens" || p == "/sim/v1/tokens/revoke") {
    if (!body.is_object()) return bad_request("tokens need a JSON object body");
    const auto& b = body.get_object();
    std::string token(string_at(b, {"token"}));
    if (token.empty()) return bad_request("tokens need {\"token\": ...}");
    if (p == "/sim/v1/tokens/revoke") {
      t.auth.tokens.erase(token);
      return ok();
    }
    user_info u{std::string(string_at(b, {"user"})), "", {}};
    if (u.name.empty()) return bad_request("tokens need {\"user\": ...}");
    if (const auto* gs = array_at(b, {"groups"}))
      for (const auto& g : *gs)
        if (g.is_string()) u.groups.emplace_back(g.get_string());
    u.groups.push_back("system:authenticated");
    t.auth.tokens[token] = std::move(u);
    return ok();
  }
  if (p == "/sim/v1/objects") return load_objects(t.ops, body);
  const std::string ctl_prefix = "/sim/v1/controllers/";
  if (p.rfind(ctl_prefix, 0) == 0) {
    std::string name = p.substr(ctl_prefix.size());
    auto it = t.enabled.find(name);
    if (it == t.enabled.end()) return not_found("controllers", "sim", name);
    const auto* e = body.is_object() ? body.get_object().if_contains("enabled") : nullptr;
    if (!e || !e->is_bool())
      return bad_request("controller switch needs {\"enabled\": true|false}");
    it->second = e->get_bool();
    return ok();
  }
  api_error e;
  e.code = 404;
  e.reason = "NotFound";
  e.message = "no such test control: " + p;
  return e;
}

}  // namespace kp::sim::kube
