// Flow and lookup functions of the Go provider (sprig-like): their Go signatures are noted
// with each, since argument order and edge cases follow them.
#include "core/gotemplate/go_format.hpp"
#include "core/gotemplate/provider_function_groups.hpp"

namespace kp::gotemplate {

namespace {

using args_t = std::span<const value>;

result<value> map_lookup(const value& m, const std::string& key) {
  if (m.is_null()) return value("");  // a nil map reads as empty
  if (!m.is_map()) return wrong_type("map[string]string", m);
  const value* v = m.find(key);
  if (!v) return value("");
  return v->is_string() ? *v : value(format_go_value(*v));
}

}  // namespace

void add_logic_functions(function_table& t) {
  using p = go_param;
  // default(d any, given ...any) any: Go's reflect.Call passes an empty, non-nil variadic
  // slice, so the provider's given[0] fails when only d is given.
  t.add("default", {p::any, p::any}, true, [](args_t a) -> result<value> {
    if (a.size() < 2) {
      return make_error("function", "runtime error: index out of range [0] with length 0");
    }
    if (a[1].empty()) return a[0];
    return a[1];
  });
  // coalesce(v ...any) any: the first non-empty value, else nil.
  t.add("coalesce", {p::any}, true, [](args_t a) -> result<value> {
    for (const auto& v : a) {
      if (!v.empty()) return v;
    }
    return value();
  });
  // ternary(vt any, vf any, v bool) any
  t.add("ternary", {p::any, p::any, p::boolean}, false, [](args_t a) -> result<value> {
    if (!a[2].is_bool()) return wrong_type("bool", a[2]);
    return a[2].as_bool() ? a[0] : a[1];
  });
  // empty(given any) bool
  t.add("empty", {p::any}, false, [](args_t a) -> result<value> { return value(a[0].empty()); });
  // hasKey(m map[string]any, key string) bool
  t.add("hasKey", {p::any_map, p::string}, false, [](args_t a) -> result<value> {
    auto key = string_arg(a[1]);
    if (!key) return key.error();
    if (a[0].is_null()) return value(false);
    if (!a[0].is_map()) return wrong_type("map[string]interface {}", a[0]);
    return value(a[0].find(*key) != nullptr);
  });
  // hasTag(tags []string, tag string) bool
  t.add("hasTag", {p::string_list, p::string}, false, [](args_t a) -> result<value> {
    auto tag = string_arg(a[1]);
    if (!tag) return tag.error();
    if (a[0].is_null() || tag->empty()) return value(false);
    if (!a[0].is_list()) return wrong_type("[]string", a[0]);
    for (const auto& v : a[0].as_list()) {
      if (v.is_string() && v.as_string() == *tag) return value(true);
    }
    return value(false);
  });
  // get(m map[string]string, key string) string: "" when missing.
  t.add("get", {p::string_map, p::string}, false, [](args_t a) -> result<value> {
    auto key = string_arg(a[1]);
    if (!key) return key.error();
    return map_lookup(a[0], *key);
  });
  // getValue(source string, key string) string: from "k=v;k2=v2".
  t.add("getValue", {p::string, p::string}, false, [](args_t a) -> result<value> {
    auto source = string_arg(a[0]);
    if (!source) return source.error();
    auto key = string_arg(a[1]);
    if (!key) return key.error();
    std::string_view s = *source;
    while (true) {
      auto semi = s.find(';');
      std::string_view part = s.substr(0, semi);
      auto eq = part.find('=');
      if (part.substr(0, eq) == *key) {
        // Go indexes kv[1] unconditionally: a key without "=" is a runtime error there.
        if (eq == std::string_view::npos) {
          return make_error("function", "runtime error: index out of range [1] with length 1");
        }
        std::string_view rest = part.substr(eq + 1);
        return value(std::string(rest.substr(0, rest.find('='))));
      }
      if (semi == std::string_view::npos) break;
      s.remove_prefix(semi + 1);
    }
    return value("");
  });
}

}  // namespace kp::gotemplate
