#include "sim/kube/crd_structural.hpp"

#include <string>

#include "sim/kube/api_error.hpp"
#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {

// int-or-string's two-branch anyOf, the only place a junctor may name a type.
bool is_int_or_string_any_of(const json::value* any_of) {
  const auto* list = any_of ? any_of->if_array() : nullptr;
  if (!list || list->size() != 2) return false;
  auto only_type = [](const json::value& v, std::string_view type) {
    const auto* o = v.if_object();
    return o && o->size() == 1 && string_at(*o, {"type"}) == type;
  };
  return only_type((*list)[0], "integer") && only_type((*list)[1], "string");
}

struct structural_check {
  json::array& causes;

  void forbid(const std::string& path, std::string_view key, const char* why) {
    causes.push_back(field_cause("FieldValueForbidden", path + "." + std::string(key),
                                 std::string("Forbidden: ") + why));
  }

  // The junctors of a schema (structural or nested); `structural` is the schema outside them
  // that their properties and items must also be named in. The skips let int-or-string's anyOf
  // through (only a structural schema's own, or its first allOf entry's).
  void junctors(const json::object& s, const json::object* structural,
                const std::string& structural_path, const std::string& path, bool skip_any_of,
                bool skip_first_all_of_any_of) {
    auto each = [&](const char* key, bool skip_any_of_of_first) {
      const auto* list = s.if_contains(key);
      if (!list || !list->is_array()) return;
      for (std::size_t i = 0; i < list->get_array().size(); ++i) {
        const auto* sub = list->get_array()[i].if_object();
        if (!sub) continue;
        nested(*sub, structural, structural_path, path + "." + key + "[" + std::to_string(i) + "]",
               skip_any_of_of_first && i == 0);
      }
    };
    if (!skip_any_of) each("anyOf", false);
    each("allOf", skip_first_all_of_any_of);
    each("oneOf", false);
    if (const auto* n = s.if_contains("not"); n && n->is_object())
      nested(n->get_object(), structural, structural_path, path + ".not", false);
  }

  // A schema under a junctor: value validations only, on fields the structure also names.
  void nested(const json::object& v, const json::object* structural,
              const std::string& structural_path, const std::string& path, bool skip_any_of) {
    junctors(v, structural, structural_path, path, skip_any_of, false);
    if (const auto* items = v.if_contains("items"); items && items->is_object()) {
      const json::value* s_items = structural ? structural->if_contains("items") : nullptr;
      if (!s_items || !s_items->is_object()) {
        causes.push_back(
            field_cause("FieldValueRequired", structural_path + ".items",
                        "Required value: because it is defined in " + path + ".items"));
      }
      nested(items->get_object(), s_items ? s_items->if_object() : nullptr,
             structural_path + ".items", path + ".items", false);
    }
    if (const auto* props = v.if_contains("properties"); props && props->is_object()) {
      const auto* s_props = structural ? object_at(*structural, {"properties"}) : nullptr;
      for (const auto& kv : props->get_object()) {
        if (!kv.value().is_object()) continue;
        std::string key = "properties[" + std::string(kv.key()) + "]";
        const json::value* s_prop = s_props ? s_props->if_contains(kv.key()) : nullptr;
        if (!s_prop || !s_prop->is_object()) {
          causes.push_back(
              field_cause("FieldValueRequired", structural_path + "." + key,
                          "Required value: because it is defined in " + path + "." + key));
        }
        nested(kv.value().get_object(), s_prop ? s_prop->if_object() : nullptr,
               structural_path + "." + key, path + "." + key, false);
      }
      if (props->get_object().contains("metadata"))
        forbid(path, "properties[metadata]", "must not be specified in a nested context");
    }
    if (v.contains("type")) forbid(path, "type", "must be empty to be structural");
    if (v.contains("additionalProperties"))
      forbid(path, "additionalProperties", "must be undefined to be structural");
    if (v.contains("default")) forbid(path, "default", "must be undefined to be structural");
    if (!string_at(v, {"title"}).empty()) forbid(path, "title", "must be empty to be structural");
    if (!string_at(v, {"description"}).empty())
      forbid(path, "description", "must be empty to be structural");
    auto is_true = [&](const char* key) {
      const auto* b = v.if_contains(key);
      return b && b->is_bool() && b->get_bool();
    };
    if (is_true("nullable")) forbid(path, "nullable", "must be false to be structural");
    for (const char* key : {"x-kubernetes-preserve-unknown-fields",
                            "x-kubernetes-embedded-resource", "x-kubernetes-int-or-string"})
      if (is_true(key)) forbid(path, key, "must be false to be structural");
    if (const auto* keys = array_at(v, {"x-kubernetes-list-map-keys"}); keys && !keys->empty())
      forbid(path, "x-kubernetes-list-map-keys", "must be empty to be structural");
    for (const char* key : {"x-kubernetes-list-type", "x-kubernetes-map-type"})
      if (v.contains(key)) forbid(path, key, "must be undefined to be structural");
    // CRDs are validated without AllowNestedXValidations: no CEL rule under any junctor.
    if (const auto* rules = array_at(v, {"x-kubernetes-validations"}); rules && !rules->empty())
      forbid(path, "x-kubernetes-validations", "must be empty to be structural");
  }

  // A structural schema: its own junctors, then those of every schema it holds.
  void structural(const json::object& s, const std::string& path) {
    bool skip_first_all_of_any_of = false;
    if (const auto* all_of = array_at(s, {"allOf"}); all_of && !all_of->empty()) {
      const auto* first = (*all_of)[0].if_object();
      skip_first_all_of_any_of = first && is_int_or_string_any_of(first->if_contains("anyOf"));
    }
    junctors(s, &s, path, path, is_int_or_string_any_of(s.if_contains("anyOf")),
             skip_first_all_of_any_of);
    if (const auto* items = s.if_contains("items"); items && items->is_object())
      structural(items->get_object(), path + ".items");
    if (const auto* props = s.if_contains("properties"); props && props->is_object())
      for (const auto& kv : props->get_object())
        if (kv.value().is_object())
          structural(kv.value().get_object(), path + ".properties[" + std::string(kv.key()) + "]");
    if (const auto* a = s.if_contains("additionalProperties"); a && a->is_object())
      structural(a->get_object(), path + ".additionalProperties");
  }
};

}  // namespace

json::array check_structural_junctors(const json::object& crd) {
  json::array causes;
  const auto* versions = array_at(crd, {"spec", "versions"});
  if (!versions) return causes;
  structural_check check{causes};
  for (std::size_t i = 0; i < versions->size(); ++i) {
    const auto* v = (*versions)[i].if_object();
    const auto* schema = v ? find_path(*v, {"schema", "openAPIV3Schema"}) : nullptr;
    if (schema && schema->is_object())
      check.structural(schema->get_object(),
                       "spec.versions[" + std::to_string(i) + "].schema.openAPIV3Schema");
  }
  return causes;
}

}  // namespace kp::sim::kube
