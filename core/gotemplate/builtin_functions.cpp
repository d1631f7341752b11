// text/template's predefined functions.
#include <cctype>
#include <cstdio>

#include "core/gotemplate/function_table.hpp"
#include "core/gotemplate/go_format.hpp"
#include "core/gotemplate/printf.hpp"

namespace kp::gotemplate {

namespace {

using args_t = std::span<const value>;

kp::error fail(std::string message) {
  return make_error("function", std::move(message));
}

// Go's basicKind groups for comparison: ints, floats, strings, bools.
enum class cmp_kind { invalid, boolean, integer, floating, string };

cmp_kind kind_of(const value& v) {
  switch (v.type()) {
    case value::kind::boolean:
      return cmp_kind::boolean;
    case value::kind::integer:
      return cmp_kind::integer;
    case value::kind::floating:
      return cmp_kind::floating;
    case value::kind::string:
      return cmp_kind::string;
    default:
      return cmp_kind::invalid;
  }
}

result<value> eq(args_t a) {
  if (a.size() < 2) return fail("missing argument for comparison");
  const value& x = a[0];
  for (const auto& y : a.subspan(1)) {
    if (x.is_null() || y.is_null()) {
      if (x.is_null() && y.is_null()) return value(true);
      continue;
    }
    auto kx = kind_of(x);
    auto ky = kind_of(y);
    if (kx == cmp_kind::invalid || ky == cmp_kind::invalid) {
      const value& bad = kx == cmp_kind::invalid ? x : y;
      return fail("non-comparable type " + format_go_value(bad) + ": " + bad.type_name());
    }
    if (kx != ky) return fail("incompatible types for comparison");
    if (x == y) return value(true);
  }
  return value(false);
}

result<int> compare(const value& x, const value& y) {
  auto kx = kind_of(x);
  auto ky = kind_of(y);
  if (kx == cmp_kind::invalid || kx == cmp_kind::boolean || ky == cmp_kind::invalid ||
      ky == cmp_kind::boolean) {
    return fail("invalid type for comparison");
  }
  if (kx != ky) return fail("incompatible types for comparison");
  switch (kx) {
    case cmp_kind::integer:
      return x.as_int() < y.as_int() ? -1 : x.as_int() > y.as_int() ? 1 : 0;
    case cmp_kind::floating:
      return x.as_double() < y.as_double() ? -1 : x.as_double() > y.as_double() ? 1 : 0;
    default:
      return x.as_string() < y.as_string() ? -1 : x.as_string() > y.as_string() ? 1 : 0;
  }
}

template <class Pred>
function_impl ordered(Pred pred) {
  return [pred](args_t a) -> result<value> {
    auto c = compare(a[0], a[1]);
    if (!c) return c.error();
    return value(pred(*c));
  };
}

result<value> index_one(const value& item, const value& key) {
  if (item.is_null()) return fail("index of untyped nil");
  if (item.is_list() || item.is_string()) {
    if (!key.is_int()) return fail("cannot index slice/array with type " + key.type_name());
    auto i = key.as_int();
    if (i < 0 || static_cast<std::size_t>(i) >= item.size()) {
      return fail("index out of range: " + std::to_string(i));
    }
    if (item.is_string())
      return value(static_cast<std::int64_t>(
          static_cast<unsigned char>(item.as_string()[static_cast<std::size_t>(i)])));
    return item.as_list()[static_cast<std::size_t>(i)];
  }
  if (item.is_map() && !item.is_record()) {
    if (!key.is_string()) return fail("value has type " + key.type_name() + "; should be string");
    if (const value* v = item.find(key.as_string())) return *v;
    return item.as_map().flavour == value::map_flavour::string_map ? value("") : value();
  }
  return fail("can't index item of type " + item.type_name());
}

result<value> index_fn(args_t a) {
  value item = a[0];
  for (const auto& k : a.subspan(1)) {
    auto next = index_one(item, k);
    if (!next) return next;
    item = std::move(*next);
  }
  return item;
}

result<value> slice_fn(args_t a) {
  const value& item = a[0];
  if (item.is_null()) return fail("slice of untyped nil");
  if (!item.is_list() && !item.is_string())
    return fail("can't slice item of type " + item.type_name());
  if (a.size() > 4) return fail("too many slice indexes: " + std::to_string(a.size() - 1));
  if (item.is_string() && a.size() == 4) return fail("cannot 3-index slice a string");
  auto len = static_cast<std::int64_t>(item.size());
  std::int64_t idx[3] = {0, len, len};
  for (std::size_t k = 1; k < a.size(); ++k) {
    if (!a[k].is_int()) return fail("cannot index slice/array with type " + a[k].type_name());
    idx[k - 1] = a[k].as_int();
    if (idx[k - 1] < 0 || idx[k - 1] > len) {
      return fail("index out of range: " + std::to_string(idx[k - 1]));
    }
  }
  if (idx[0] > idx[1]) {
    return fail("invalid slice index: " + std::to_string(idx[0]) + " > " + std::to_string(idx[1]));
  }
  if (a.size() == 4 && idx[1] > idx[2]) {
    return fail("invalid slice index: " + std::to_string(idx[1]) + " > " + std::to_string(idx[2]));
  }
  auto from = static_cast<std::size_t>(idx[0]);
  auto to = static_cast<std::size_t>(idx[1]);
  if (item.is_string()) return value(item.as_string().substr(from, to - from));
  return value(value::list_data(item.as_list().begin() + static_cast<std::ptrdiff_t>(from),
                                item.as_list().begin() + static_cast<std::ptrdiff_t>(to)));
}

result<value> len_fn(args_t a) {
  const value& v = a[0];
  if (v.is_null()) return fail("len of nil pointer");
  if (v.is_string() || v.is_list() || (v.is_map() && !v.is_record())) {
    return value(static_cast<std::int64_t>(v.size()));
  }
  return fail("len of type " + v.type_name());
}

// The text the escaping functions work on: one string argument as is, anything else as print.
std::string escaper_input(args_t a) {
  if (a.size() == 1 && a[0].is_string()) return a[0].as_string();
  return go_sprint(a);
}

result<value> html_fn(args_t a) {
  std::string out;
  for (char c : escaper_input(a)) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '\'':
        out += "&#39;";
        break;
      case '"':
        out += "&#34;";
        break;
      case '\0':
        out += "\xEF\xBF\xBD";
        break;
      default:
        out.push_back(c);
    }
  }
  return value(out);
}

result<value> js_fn(args_t a) {
  std::string out;
  for (char c : escaper_input(a)) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '\\':
        out += "\\\\";
        continue;
      case '\'':
        out += "\\'";
        continue;
      case '"':
        out += "\\\"";
        continue;
      case '<':
        out += "\\u003C";
        continue;
      case '>':
        out += "\\u003E";
        continue;
      case '&':
        out += "\\u0026";
        continue;
      case '=':
        out += "\\u003D";
        continue;
      default:
        break;
    }
    if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04X", u);
      out += buf;
    } else {
      out.push_back(c);
    }
  }
  return value(out);
}

result<value> urlquery_fn(args_t a) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (char c : escaper_input(a)) {
    auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(c);
    } else if (c == ' ') {
      out.push_back('+');
    } else {
      out.push_back('%');
      out.push_back(hex[u >> 4]);
      out.push_back(hex[u & 0xF]);
    }
  }
  return value(out);
}

function_table make_builtins() {
  function_table t;
  // and/or are short-circuited by the executor; these bodies serve a direct call only.
  t.add("and", 1, -1, [](args_t a) -> result<value> {
    for (const auto& v : a) {
      if (!v.truthy()) return v;
    }
    return a.back();
  });
  t.add("or", 1, -1, [](args_t a) -> result<value> {
    for (const auto& v : a) {
      if (v.truthy()) return v;
    }
    return a.back();
  });
  t.add("not", 1, 1, [](args_t a) -> result<value> { return value(!a[0].truthy()); });
  t.add("len", 1, 1, len_fn);
  t.add("index", 1, -1, index_fn);
  t.add("slice", 1, -1, slice_fn);
  t.add("print", 0, -1, [](args_t a) -> result<value> { return value(go_sprint(a)); });
  t.add("println", 0, -1, [](args_t a) -> result<value> { return value(go_sprintln(a)); });
  t.add("printf", 1, -1, [](args_t a) -> result<value> {
    auto f = string_arg(a[0]);
    if (!f) return f.error();
    return value(go_sprintf(*f, a.subspan(1)));
  });
  t.add("eq", 1, -1, eq);
  t.add("ne", 2, 2, [](args_t a) -> result<value> {
    auto r = eq(a);
    if (!r) return r;
    return value(!r->as_bool());
  });
  t.add("lt", 2, 2, ordered([](int c) { return c < 0; }));
  t.add("le", 2, 2, ordered([](int c) { return c <= 0; }));
  t.add("gt", 2, 2, ordered([](int c) { return c > 0; }));
  t.add("ge", 2, 2, ordered([](int c) { return c >= 0; }));
  t.add("html", 0, -1, html_fn);
  t.add("js", 0, -1, js_fn);
  t.add("urlquery", 0, -1, urlquery_fn);
  t.add("call", 1, -1, [](args_t) -> result<value> {
    return fail("calling functions held in data is not supported");
  });
  return t;
}

}  // namespace

const function_table& builtin_functions() {
  static const function_table table = make_builtins();
  return table;
}

}  // namespace kp::gotemplate
