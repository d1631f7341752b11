#include "sim/kube/crd_rules.hpp"

#include <map>
#include <memory>
#include <mutex>

#include "core/text/trim.hpp"
#include "sim/kube/api_error.hpp"
#include "sim/kube/cel/library.hpp"
#include "sim/kube/cel/program.hpp"
#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {

// Rules are compiled once per text: CRDs are few, writes are many.
result<std::shared_ptr<const cel::program>> compiled(const std::string& rule) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const cel::program>> cache;
  std::lock_guard lock(mutex);
  if (auto it = cache.find(rule); it != cache.end()) return it->second;
  auto p = cel::compile(rule);
  if (!p) return p.error();
  auto shared = std::make_shared<const cel::program>(std::move(p.value()));
  if (cache.size() > 4096) cache.clear();
  cache.emplace(rule, shared);
  return shared;
}

// ---- CRD creation: every rule and every pattern must compile.
void check_schema(const json::value& schema, const std::string& path, json::array& causes) {
  const auto* s = schema.if_object();
  if (!s) return;
  if (const auto* p = s->if_contains("pattern"); p && p->is_string()) {
    std::string pattern(p->get_string());
    if (auto re = cel::compiled_regex(pattern); !re)
      causes.push_back(field_cause(
          "FieldValueInvalid", path + ".pattern",
          "Invalid value: \"" + pattern +
              "\": must be a valid regular expression, but isn't: " + re.error().message));
  }
  if (const auto* rules = s->if_contains("x-kubernetes-validations"); rules && rules->is_array()) {
    const auto& list = rules->get_array();
    for (std::size_t i = 0; i < list.size(); ++i) {
      std::string at = path + ".x-kubernetes-validations[" + std::to_string(i) + "]";
      const auto* r = list[i].if_object();
      const auto* text = r ? r->if_contains("rule") : nullptr;
      if (!text || !text->is_string() || text->get_string().empty()) {
        causes.push_back(field_cause("FieldValueRequired", at + ".rule", "Required value"));
        continue;
      }
      std::string rule(text->get_string());
      if (auto p = compiled(rule); !p)
        causes.push_back(field_cause(
            "FieldValueInvalid", at + ".rule",
            "Invalid value: \"" + rule +
                "\": compilation failed: ERROR: <input>: " + p.error().message +
                " (kube-sim's CEL interpreter cannot evaluate this rule; see docs/kube-sim.md)"));
      if (const auto* me = r->if_contains("messageExpression"); me && me->is_string())
        causes.push_back(field_cause(
            "FieldValueInvalid", at + ".messageExpression",
            "Invalid value: \"" + std::string(me->get_string()) +
                "\": kube-sim does not evaluate messageExpression; use message instead"));
    }
  }
  if (const auto* props = s->if_contains("properties"); props && props->is_object())
    for (const auto& kv : props->get_object())
      check_schema(kv.value(), path + ".properties[" + std::string(kv.key()) + "]", causes);
  for (const char* key : {"items", "additionalProperties"})
    if (const auto* sub = s->if_contains(key); sub && sub->is_object())
      check_schema(*sub, path + "." + key, causes);
  if (const auto* sub = s->if_contains("not"); sub && sub->is_object())
    check_schema(*sub, path + ".not", causes);
  for (const char* key : {"allOf", "anyOf", "oneOf"})
    if (const auto* sub = s->if_contains(key); sub && sub->is_array()) {
      const auto& list = sub->get_array();
      for (std::size_t i = 0; i < list.size(); ++i)
        check_schema(list[i], path + "." + key + "[" + std::to_string(i) + "]", causes);
    }
}

// ---- object writes
struct rule_walker {
  json::array& causes;

  static std::string child(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  }

  void run_rules(const json::object& s, const json::value& value, const json::value* old,
                 const std::string& path) {
    const auto* rules = s.if_contains("x-kubernetes-validations");
    if (!rules || !rules->is_array()) return;
    std::string type(string_at(s, {"type"}));
    for (const auto& rv : rules->get_array()) {
      const auto* r = rv.if_object();
      if (!r) continue;
      std::string rule(string_at(*r, {"rule"}));
      auto program = compiled(rule);
      if (!program) continue;  // refused when the CRD was written; a CRD stored before cannot be
      const auto& p = *program.value();
      if (p.uses_old_self && !old) continue;
      if (!p.uses_old_self && old && *old == value) continue;  // ratcheting
      std::string message = std::string(text::trim(string_at(*r, {"message"})));
      std::string reason(string_at(*r, {"reason"}));
      std::string field_path(string_at(*r, {"fieldPath"}));
      std::string at = path;
      if (!field_path.empty()) at += field_path.front() == '.' ? field_path : "." + field_path;
      if (!at.empty() && at.front() == '.') at.erase(0, 1);
      auto outcome = cel::evaluate(p, value, p.uses_old_self ? old : nullptr);
      std::string rule_text = message.empty() ? std::string(text::trim(rule)) : message;
      if (!outcome) {
        causes.push_back(field_cause("FieldValueInvalid", at,
                                     "Invalid value: \"" + type + "\": " + outcome.error().message +
                                         " evaluating rule: " + rule_text));
        continue;
      }
      if (outcome.value().is_bool() && outcome.value().get_bool()) continue;
      if (!outcome.value().is_bool()) {
        causes.push_back(field_cause(
            "FieldValueInvalid", at,
            "Invalid value: \"" + type + "\": rule did not evaluate to a bool: " + rule_text));
        continue;
      }
      std::string detail =
          message.empty() ? "failed rule: " + std::string(text::trim(rule)) : message;
      if (reason == "FieldValueForbidden") {
        causes.push_back(field_cause(reason, at, "Forbidden: " + detail));
      } else if (reason == "FieldValueRequired") {
        causes.push_back(field_cause(reason, at, "Required value: " + detail));
      } else if (reason == "FieldValueDuplicate") {
        causes.push_back(field_cause(reason, at, "Duplicate value: \"" + type + "\""));
      } else {
        causes.push_back(
            field_cause("FieldValueInvalid", at, "Invalid value: \"" + type + "\": " + detail));
      }
    }
  }

  // The old item a new item of a map-type list correlates with: equal values of every key.
  static const json::value* correlated_item(const json::object& list_schema,
                                            const json::value& item, const json::array* old_list) {
    if (!old_list || string_at(list_schema, {"x-kubernetes-list-type"}) != "map" ||
        !item.is_object())
      return nullptr;
    const auto* keys = array_at(list_schema, {"x-kubernetes-list-map-keys"});
    if (!keys) return nullptr;
    for (const auto& candidate : *old_list) {
      if (!candidate.is_object()) continue;
      bool same = true;
      for (const auto& k : *keys) {
        if (!k.is_string()) continue;
        const auto* a = item.get_object().if_contains(k.get_string());
        const auto* b = candidate.get_object().if_contains(k.get_string());
        if ((a == nullptr) != (b == nullptr) || (a && *a != *b)) {
          same = false;
          break;
        }
      }
      if (same) return &candidate;
    }
    return nullptr;
  }

  void walk(const json::value& schema, const json::value& value, const json::value* old,
            const std::string& path, bool root) {
    const auto* s = schema.if_object();
    if (!s || value.is_null()) return;
    run_rules(*s, value, old, path);
    if (const auto* o = value.if_object()) {
      const auto* old_o = old ? old->if_object() : nullptr;
      const auto* props = object_at(*s, {"properties"});
      const auto* additional = s->if_contains("additionalProperties");
      for (const auto& kv : *o) {
        if (root && (kv.key() == "apiVersion" || kv.key() == "kind" || kv.key() == "metadata"))
          continue;
        const json::value* old_child = old_o ? old_o->if_contains(kv.key()) : nullptr;
        if (const auto* ps = props ? props->if_contains(kv.key()) : nullptr) {
          walk(*ps, kv.value(), old_child, child(path, kv.key()), false);
        } else if (additional && additional->is_object()) {
          walk(*additional, kv.value(), old_child, path + "[" + std::string(kv.key()) + "]", false);
        }
      }
    } else if (const auto* a = value.if_array()) {
      const auto* items = s->if_contains("items");
      if (!items || !items->is_object()) return;
      const auto* old_a = old ? old->if_array() : nullptr;
      for (std::size_t i = 0; i < a->size(); ++i) {
        const json::value* old_item = correlated_item(*s, (*a)[i], old_a);
        walk(*items, (*a)[i], old_item, path + "[" + std::to_string(i) + "]", false);
      }
    }
  }
};

}  // namespace

json::array check_crd_rules(const json::object& crd) {
  json::array causes;
  const auto* versions = array_at(crd, {"spec", "versions"});
  if (!versions) return causes;
  for (std::size_t i = 0; i < versions->size(); ++i) {
    const auto* v = (*versions)[i].if_object();
    if (!v) continue;
    if (const auto* schema = find_path(*v, {"schema", "openAPIV3Schema"}))
      check_schema(*schema, "spec.versions[" + std::to_string(i) + "].schema.openAPIV3Schema",
                   causes);
  }
  return causes;
}

json::array evaluate_crd_rules(const json::value& object, const json::value* old_object,
                               const json::value& schema) {
  json::array causes;
  rule_walker w{causes};
  w.walk(schema, object, old_object, "", true);
  return causes;
}

}  // namespace kp::sim::kube
