#include "sim/kube/scale.hpp"

#include <string>
#include <vector>

#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {

// ".spec.replicas" -> {"spec", "replicas"}
std::vector<std::string> path_steps(const std::string& path) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    auto j = path.find('.', i);
    out.push_back(path.substr(i, j == std::string::npos ? std::string::npos : j - i));
    if (j == std::string::npos) break;
    i = j;
  }
  return out;
}

const json::value* value_at(const json::object& root, const std::string& path) {
  const json::object* cur = &root;
  const json::value* v = nullptr;
  for (const auto& step : path_steps(path)) {
    if (!cur) return nullptr;
    v = cur->if_contains(step);
    if (!v) return nullptr;
    cur = v->if_object();
  }
  return v;
}

}  // namespace

std::string selector_text(const json::object* selector) {
  if (!selector) return "";
  std::vector<std::string> parts;
  if (const auto* labels = object_at(*selector, {"matchLabels"}))
    for (const auto& kv : *labels)
      if (kv.value().is_string())
        parts.push_back(std::string(kv.key()) + "=" + std::string(kv.value().get_string()));
  if (const auto* exprs = array_at(*selector, {"matchExpressions"})) {
    for (const auto& e : *exprs) {
      const auto* eo = e.if_object();
      if (!eo) continue;
      std::string key(string_at(*eo, {"key"}));
      auto op = string_at(*eo, {"operator"});
      std::string values;
      if (const auto* vs = array_at(*eo, {"values"}))
        for (const auto& v : *vs)
          if (v.is_string()) values += (values.empty() ? "" : ",") + std::string(v.get_string());
      if (op == "In") parts.push_back(key + " in (" + values + ")");
      if (op == "NotIn") parts.push_back(key + " notin (" + values + ")");
      if (op == "Exists") parts.push_back(key);
      if (op == "DoesNotExist") parts.push_back("!" + key);
    }
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

json::object scale_of(const resource_type& type, const json::object& object) {
  const auto& paths = *type.scale;
  json::object meta;
  for (const char* k : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"})
    if (const auto* v = find_path(object, {"metadata", k})) meta[k] = *v;
  std::int64_t spec = 0, status = 0;
  if (const auto* v = value_at(object, paths.spec_replicas)) spec = as_int(*v).value_or(0);
  if (const auto* v = value_at(object, paths.status_replicas)) status = as_int(*v).value_or(0);
  std::string selector;
  if (!paths.label_selector.empty()) {
    if (const auto* v = value_at(object, paths.label_selector); v && v->is_string())
      selector = std::string(v->get_string());
  } else {
    selector = selector_text(object_at(object, {"spec", "selector"}));
  }
  json::object st{{"replicas", status}};
  if (!selector.empty()) st["selector"] = selector;
  return json::object{{"kind", "Scale"},
                      {"apiVersion", "autoscaling/v1"},
                      {"metadata", std::move(meta)},
                      {"spec", json::object{{"replicas", spec}}},
                      {"status", std::move(st)}};
}

api_result<json::object> with_scale(const resource_type& type, json::object object,
                                    const json::value& scale) {
  if (!scale.is_object()) return bad_request("the Scale must be a JSON object");
  const auto& s = scale.get_object();
  auto kind = string_at(s, {"kind"});
  if (!kind.empty() && kind != "Scale")
    return bad_request("the kind in the data (" + std::string(kind) + ") is not Scale");
  std::string name(meta_name(object));
  auto body_name = string_at(s, {"metadata", "name"});
  if (!body_name.empty() && body_name != name)
    return bad_request("the name of the object (" + std::string(body_name) +
                       ") does not match the name on the URL (" + name + ")");
  const auto* r = find_path(s, {"spec", "replicas"});
  std::optional<std::int64_t> replicas = r ? as_int(*r) : std::optional<std::int64_t>(0);
  if (!replicas || *replicas < 0 || *replicas > INT32_MAX)
    return invalid(
        "Scale", "autoscaling", name,
        json::array{field_cause(
            "FieldValueInvalid", "spec.replicas",
            "Invalid value: " +
                std::string(r && as_int(*r) ? std::to_string(*as_int(*r)) : "\"non-integer\"") +
                ": must be greater than or equal to 0")});
  auto steps = path_steps(type.scale->spec_replicas);
  if (steps.empty()) return internal_error("the scale subresource has no specReplicasPath");
  json::object* cur = &object;
  for (std::size_t i = 0; i + 1 < steps.size(); ++i) cur = &ensure_object(*cur, steps[i]);
  (*cur)[steps.back()] = *replicas;
  auto rv = string_at(s, {"metadata", "resourceVersion"});
  if (!rv.empty()) ensure_object(object, "metadata")["resourceVersion"] = std::string(rv);
  return object;
}

}  // namespace kp::sim::kube
