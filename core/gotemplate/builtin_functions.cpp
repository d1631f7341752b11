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
  if (v.is_pointer()) return cmp_kind::invalid;
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

// A Go type that == accepts: scalars, nil, and structs whose fields all are.
bool comparable(const value& v) {
  if (v.is_list()) return false;
  if (v.is_map() && !v.is_record()) return false;
  if (v.is_record()) {
    for (const auto& e : v.as_map().entries) {
      if (!comparable(e.val)) return false;
    }
  }
  return true;
}

// Go 1.19's eq: basic kinds compare by value; other values (structs) with ==, which refuses
// slices and maps; a nil equals only nil.
result<value> eq(args_t a) {
  if (a.size() < 2) return fail("missing argument for comparison");
  const value& x = a[0];
  auto kx = kind_of(x);
  for (const auto& y : a.subspan(1)) {
    auto ky = kind_of(y);
    bool truth = false;
    if (kx != ky) {
      // Only Go's invalid value (nil, a missing key) compares with anything; a nil pointer
      // is a typed value.
      bool x_valid = !x.is_null() || x.is_nil_pointer();
      bool y_valid = !y.is_null() || y.is_nil_pointer();
      if (x_valid && y_valid) return fail("incompatible types for comparison");
    } else if (kx != cmp_kind::invalid) {
      truth = x == y;
    } else {
      bool same_kind = x.is_null() || y.is_null() || (x.is_pointer() && y.is_pointer()) ||
                       (x.is_list() && y.is_list()) || (x.is_record() && y.is_record()) ||
                       (x.is_map() && !x.is_record() && y.is_map() && !y.is_record());
      if (!same_kind) {
        value both[] = {x, value(x.type_name()), value(y.type_name()), y};
        return fail(go_sprintf("non-comparable types %s: %v, %s: %v", both));
      }
      if (x.is_null() || y.is_null()) {
        truth = x.is_null() && y.is_null();
      } else {
        if (!comparable(y)) {
          value one[] = {y, value(y.type_name())};
          return fail(go_sprintf("non-comparable type %s: %v", one));
        }
        truth = x == y;
      }
    }
    if (truth) return value(true);
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
  result<value> item = a[0];
  for (const auto& k : a.subspan(1)) {
    item = index_one(*item, k);  // a copy of the element, never a reference into item
    if (!item) break;
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

// The text the escaping functions work on: one string argument as is, anything else as print;
// nullopt when it alone would exceed max_bytes (escaping never shortens).
std::optional<std::string> escaper_input(args_t a, std::size_t max_bytes) {
  if (a.size() == 1 && a[0].is_string()) {
    if (a[0].as_string().size() > max_bytes) return std::nullopt;
    return a[0].as_string();
  }
  // Go's evalArgs turns a nil argument into "<no value>" before printing.
  std::vector<value> printable(a.begin(), a.end());
  for (auto& x : printable) {
    if (x.is_null()) x = value("<no value>");
  }
  return go_sprint(printable, max_bytes);
}

result<value> html_fn(args_t a, std::size_t max_bytes) {
  auto in = escaper_input(a, max_bytes);
  if (!in) return over_budget();
  std::string out;
  for (char c : *in) {
    if (out.size() > max_bytes) return over_budget();
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
  return value(std::move(out));
}

// template.JSEscapeString: quotes, <, >, &, = and control characters escaped, and any other
// character that is not printable as \uXXXX.
result<value> js_fn(args_t a, std::size_t max_bytes) {
  auto text = escaper_input(a, max_bytes);
  if (!text) return over_budget();
  const std::string& in = *text;
  std::string out;
  for (std::size_t i = 0; i < in.size();) {
    if (out.size() > max_bytes) return over_budget();
    char c = in[i];
    auto u = static_cast<unsigned char>(c);
    if (u < 0x80) {
      ++i;
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
      continue;
    }
    std::uint32_t cp = 0;
    std::size_t n = decode_utf8(in, i, cp);
    if (is_go_printable(cp)) {
      out.append(in, i, n);
    } else {
      char buf[16];
      std::snprintf(buf, sizeof buf, "\\u%04X", cp);
      out += buf;
    }
    i += n;
  }
  return value(std::move(out));
}

result<value> urlquery_fn(args_t a, std::size_t max_bytes) {
  static const char* hex = "0123456789ABCDEF";
  auto in = escaper_input(a, max_bytes);
  if (!in) return over_budget();
  std::string out;
  for (char c : *in) {
    if (out.size() > max_bytes) return over_budget();
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
  return value(std::move(out));
}

function_table make_builtins() {
  using p = go_param;
  const auto v = p::reflect_value;
  function_table t;
  // and/or are short-circuited by the executor; these bodies serve a direct call only.
  t.add("and", {v, v}, true, [](args_t a) -> result<value> {
    for (const auto& x : a) {
      if (!x.truthy()) return x;
    }
    return a.back();
  });
  t.add("or", {v, v}, true, [](args_t a) -> result<value> {
    for (const auto& x : a) {
      if (x.truthy()) return x;
    }
    return a.back();
  });
  t.add("not", {v}, false, [](args_t a) -> result<value> { return value(!a[0].truthy()); });
  t.add("len", {v}, false, len_fn);
  t.add("index", {v, v}, true, index_fn);
  t.add("slice", {v, v}, true, slice_fn);
  t.add("print", {p::any}, true, [](args_t a, std::size_t max_bytes) -> result<value> {
    auto out = go_sprint(a, max_bytes);
    if (!out) return over_budget();
    return value(std::move(*out));
  });
  t.add("println", {p::any}, true, [](args_t a, std::size_t max_bytes) -> result<value> {
    auto out = go_sprintln(a, max_bytes);
    if (!out) return over_budget();
    return value(std::move(*out));
  });
  t.add("printf", {p::string, p::any}, true, [](args_t a, std::size_t max_bytes) -> result<value> {
    auto out = go_sprintf(a[0].as_string(), a.subspan(1), max_bytes);
    if (!out) return over_budget();
    return value(std::move(*out));
  });
  t.add("eq", {v, v}, true, eq);
  t.add("ne", {v, v}, false, [](args_t a) -> result<value> {
    auto r = eq(a);
    if (!r) return r;
    return value(!r->as_bool());
  });
  t.add("lt", {v, v}, false, ordered([](int c) { return c < 0; }));
  t.add("le", {v, v}, false, ordered([](int c) { return c <= 0; }));
  t.add("gt", {v, v}, false, ordered([](int c) { return c > 0; }));
  t.add("ge", {v, v}, false, ordered([](int c) { return c >= 0; }));
  t.add("html", {p::any}, true, html_fn);
  t.add("js", {p::any}, true, js_fn);
  t.add("urlquery", {p::any}, true, urlquery_fn);
  t.add("call", {v, v}, true, [](args_t a) -> result<value> {
    // Data holds no functions, so whatever is called is not one (Go's wording).
    if (a[0].is_null()) return fail("call of nil");
    return fail("non-function of type " + a[0].type_name());
  });
  return t;
}

}  // namespace

const function_table& builtin_functions() {
  static const function_table table = make_builtins();
  return table;
}

}  // namespace kp::gotemplate
