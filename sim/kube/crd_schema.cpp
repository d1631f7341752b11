#include "sim/kube/crd_schema.hpp"

#include <re2/re2.h>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <map>
#include <memory>

#include "sim/kube/api_error.hpp"
#include "sim/kube/cel/library.hpp"
#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {

std::string show(const json::value& v) {
  return json::serialize(v);
}

bool flag(const json::object& s, std::string_view key) {
  const auto* v = s.if_contains(key);
  return v && v->is_bool() && v->get_bool();
}

std::string child(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

struct walker {
  schema_outcome& out;
  // Inside allOf/anyOf/oneOf/not: value validations only, no defaults and no pruning.
  bool nested = false;

  void invalid(const std::string& path, const json::value& v, const std::string& why) {
    out.causes.push_back(
        field_cause("FieldValueInvalid", path, "Invalid value: " + show(v) + ": " + why));
  }

  bool type_ok(const json::object& s, const json::value& v, const std::string& path) {
    if (flag(s, "x-kubernetes-int-or-string")) {
      if (v.is_string() || as_int(v)) return true;
      invalid(path, v, path + " in body must be of type integer,string: " + show(v));
      return false;
    }
    std::string_view type = string_at(s, {"type"});
    if (type.empty()) return true;
    bool ok = (type == "object" && v.is_object()) || (type == "array" && v.is_array()) ||
              (type == "string" && v.is_string()) || (type == "boolean" && v.is_bool()) ||
              (type == "integer" && as_int(v)) ||
              (type == "number" && (v.is_double() || v.is_int64() || v.is_uint64()));
    if (!ok) {
      out.causes.push_back(field_cause("FieldValueTypeInvalid", path,
                                       "Invalid value: \"" +
                                           std::string(v.is_object()   ? "object"
                                                       : v.is_array()  ? "array"
                                                       : v.is_string() ? "string"
                                                       : v.is_bool()   ? "boolean"
                                                                       : "number") +
                                           "\": " + path + " in body must be of type " +
                                           std::string(type) + ": " +
                                           (v.is_string() ? show(v) : "\"" + show(v) + "\"")));
    }
    return ok;
  }

  void apply(json::value& v, const json::object& s, const std::string& path, bool root) {
    if (v.is_null()) {
      if (!flag(s, "nullable") && !string_at(s, {"type"}).empty()) {
        out.causes.push_back(field_cause("FieldValueTypeInvalid", path,
                                         "Invalid value: \"null\": " + path +
                                             " in body must be of type " +
                                             std::string(string_at(s, {"type"})) + ": \"null\""));
      }
      return;
    }
    if (!type_ok(s, v, path)) return;
    if (const auto* e = s.if_contains("enum"); e && e->is_array()) {
      const auto& values = e->get_array();
      if (std::find(values.begin(), values.end(), v) == values.end()) {
        std::string supported;
        for (const auto& ev : values) supported += (supported.empty() ? "" : ", ") + show(ev);
        out.causes.push_back(
            field_cause("FieldValueNotSupported", path,
                        "Unsupported value: " + show(v) + ": supported values: " + supported));
      }
    }
    if (v.is_string()) check_string(v, s, path);
    if (v.is_int64() || v.is_uint64() || v.is_double()) check_number(v, s, path);
    if (v.is_array()) check_array(v.get_array(), s, path);
    if (v.is_object()) check_object(v.get_object(), s, path, root);
    check_junctors(v, s, path, root);
  }

  // The causes of one value validation under a junctor, judged on a copy of the value.
  static schema_outcome judge(const json::value& v, const json::value& schema,
                              const std::string& path, bool root) {
    schema_outcome o;
    if (!schema.is_object()) return o;
    json::value copy = v;
    walker w{o, true};
    w.apply(copy, schema.get_object(), path, root);
    return o;
  }

  // allOf: every schema's causes; anyOf: one must pass; oneOf: exactly one; not: none.
  void check_junctors(const json::value& v, const json::object& s, const std::string& path,
                      bool root) {
    auto list = [&](const char* key) -> const json::array* {
      const auto* l = s.if_contains(key);
      return l && l->is_array() && !l->get_array().empty() ? &l->get_array() : nullptr;
    };
    std::string subject = path.empty() ? "body" : path + " in body";
    if (const auto* all = list("allOf")) {
      for (const auto& sub : *all)
        for (auto& c : judge(v, sub, path, root).causes) out.causes.push_back(std::move(c));
    }
    if (const auto* any = list("anyOf")) {
      bool passed = std::any_of(any->begin(), any->end(), [&](const json::value& sub) {
        return judge(v, sub, path, root).causes.empty();
      });
      if (!passed) invalid(path, v, subject + " must validate at least one schema (anyOf)");
    }
    if (const auto* one = list("oneOf")) {
      auto passed = std::count_if(one->begin(), one->end(), [&](const json::value& sub) {
        return judge(v, sub, path, root).causes.empty();
      });
      if (passed != 1) invalid(path, v, subject + " must validate one and only one schema (oneOf)");
    }
    if (const auto* n = s.if_contains("not"); n && n->is_object()) {
      if (judge(v, *n, path, root).causes.empty())
        invalid(path, v, subject + " must not validate the schema (not)");
    }
  }

  void check_string(const json::value& v, const json::object& s, const std::string& path) {
    std::string str(v.get_string());
    if (const auto* p = s.if_contains("pattern"); p && p->is_string()) {
      // Go regular expressions in kube-apiserver; RE2 reads the same syntax in linear time. A
      // pattern that does not compile was refused with the CRD.
      if (auto re = cel::compiled_regex(std::string(p->get_string()))) {
        if (!re2::RE2::PartialMatch(str, *re.value()))
          invalid(path, v, path + " in body should match '" + std::string(p->get_string()) + "'");
      }
    }
    if (const auto* m = s.if_contains("maxLength")) {
      if (auto n = as_int(*m); n && static_cast<std::int64_t>(str.size()) > *n)
        out.causes.push_back(
            field_cause("FieldValueTooLong", path,
                        "Too long: may not be more than " + std::to_string(*n) + " bytes"));
    }
    if (const auto* m = s.if_contains("minLength")) {
      if (auto n = as_int(*m); n && static_cast<std::int64_t>(str.size()) < *n)
        invalid(path, v,
                path + " in body should be at least " + std::to_string(*n) + " chars long");
    }
  }

  void check_number(const json::value& v, const json::object& s, const std::string& path) {
    double x = v.is_double()  ? v.get_double()
               : v.is_int64() ? static_cast<double>(v.get_int64())
                              : static_cast<double>(v.get_uint64());
    auto bound = [&](const char* key) -> std::optional<double> {
      const auto* b = s.if_contains(key);
      if (!b) return std::nullopt;
      if (b->is_double()) return b->get_double();
      if (b->is_int64()) return static_cast<double>(b->get_int64());
      if (b->is_uint64()) return static_cast<double>(b->get_uint64());
      return std::nullopt;
    };
    if (auto mx = bound("maximum")) {
      bool excl = flag(s, "exclusiveMaximum");
      if (excl ? x >= *mx : x > *mx)
        invalid(path, v,
                path + " in body should be less than " + std::string(excl ? "" : "or equal to ") +
                    show(*s.if_contains("maximum")));
    }
    if (auto mn = bound("minimum")) {
      bool excl = flag(s, "exclusiveMinimum");
      if (excl ? x <= *mn : x < *mn)
        invalid(path, v,
                path + " in body should be greater than " +
                    std::string(excl ? "" : "or equal to ") + show(*s.if_contains("minimum")));
    }
  }

  void check_array(json::array& a, const json::object& s, const std::string& path) {
    if (const auto* m = s.if_contains("maxItems")) {
      if (auto n = as_int(*m); n && static_cast<std::int64_t>(a.size()) > *n)
        out.causes.push_back(field_cause("FieldValueTooMany", path,
                                         "Too many: " + std::to_string(a.size()) +
                                             ": must have at most " + std::to_string(*n) +
                                             " items"));
    }
    if (const auto* m = s.if_contains("minItems")) {
      if (auto n = as_int(*m); n && static_cast<std::int64_t>(a.size()) < *n)
        invalid(path, json::value(a),
                path + " in body should have at least " + std::to_string(*n) + " items");
    }
    const auto* items = s.if_contains("items");
    if (items && items->is_object()) {
      for (std::size_t i = 0; i < a.size(); ++i)
        apply(a[i], items->get_object(), path + "[" + std::to_string(i) + "]", false);
    }
  }

  void check_object(json::object& o, const json::object& s, const std::string& path, bool root) {
    const auto* props = s.if_contains("properties");
    const json::object* properties = props ? props->if_object() : nullptr;
    // Defaults for absent properties.
    if (properties && !nested) {
      for (const auto& kv : *properties) {
        if (!kv.value().is_object()) continue;
        const auto* d = kv.value().get_object().if_contains("default");
        if (d && !o.contains(kv.key())) o[kv.key()] = *d;
      }
    }
    bool preserve = flag(s, "x-kubernetes-preserve-unknown-fields");
    const auto* additional = s.if_contains("additionalProperties");
    std::vector<std::string> pruned;
    for (auto& kv : o) {
      std::string_view key = kv.key();
      if (root && (key == "apiVersion" || key == "kind" || key == "metadata")) continue;
      const json::value* ps = properties ? properties->if_contains(key) : nullptr;
      if (ps && ps->is_object()) {
        apply(kv.value(), ps->get_object(), child(path, key), false);
      } else if (additional && additional->is_object()) {
        apply(kv.value(), additional->get_object(), child(path, key), false);
      } else if (additional && additional->is_bool() && additional->get_bool()) {
        continue;
      } else if (!preserve && !nested) {
        pruned.emplace_back(key);
      }
    }
    for (const auto& key : pruned) {
      out.unknown_fields.push_back(child(path, key));
      o.erase(key);
    }
    if (const auto* req = s.if_contains("required"); req && req->is_array()) {
      for (const auto& r : req->get_array()) {
        if (!r.is_string()) continue;
        if (!o.contains(r.get_string()))
          out.causes.push_back(
              field_cause("FieldValueRequired", child(path, r.get_string()), "Required value"));
      }
    }
    if (const auto* m = s.if_contains("maxProperties")) {
      if (auto n = as_int(*m); n && static_cast<std::int64_t>(o.size()) > *n)
        out.causes.push_back(field_cause("FieldValueTooMany", path,
                                         "Too many: " + std::to_string(o.size()) +
                                             ": must have at most " + std::to_string(*n) +
                                             " items"));
    }
  }
};

}  // namespace

schema_outcome apply_schema(json::value& object, const json::value& schema) {
  schema_outcome out;
  if (!schema.is_object()) return out;
  walker w{out};
  w.apply(object, schema.get_object(), "", true);
  return out;
}

}  // namespace kp::sim::kube
