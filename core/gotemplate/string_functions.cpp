// String functions of the Go provider. Note the argument orders, which follow the provider's Go
// code rather than sprig where they differ: split(s, sep) and join(list, sep) are Go's
// strings.Split and strings.Join; trimSuffix, trimPrefix, contains, hasPrefix and hasSuffix
// take the affix first so they read well after a pipe.
#include <algorithm>
#include <clocale>
#include <cwctype>
#include <optional>

#include <locale.h>
#include <wctype.h>

#include "core/gotemplate/go_format.hpp"
#include "core/gotemplate/provider_function_groups.hpp"

namespace kp::gotemplate {

namespace {

using args_t = std::span<const value>;

// Binds a string argument, or returns its wrong-type error from the enclosing function.
#define KP_STRING_ARG(name, index)        \
  auto name##_r = string_arg(a[index]);   \
  if (!name##_r) return name##_r.error(); \
  const std::string& name = *name##_r

bool is_unicode_space(std::string_view s, std::size_t i, std::size_t& len) {
  std::uint32_t cp = 0;
  len = decode_utf8(s, i, cp);
  return cp == ' ' || (cp >= '\t' && cp <= '\r') || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000;
}

std::string trim_space(const std::string& s) {
  std::size_t start = 0;
  std::size_t len = 0;
  while (start < s.size() && is_unicode_space(s, start, len)) start += len;
  std::size_t end = s.size();
  while (end > start) {
    // Step back to the start of the last code point.
    std::size_t p = end - 1;
    while (p > start && (static_cast<unsigned char>(s[p]) & 0xC0) == 0x80) --p;
    if (!is_unicode_space(s, p, len) || p + len != end) break;
    end = p;
  }
  return s.substr(start, end - start);
}

// Unicode simple case mapping from the C library's UTF-8 tables (the same UnicodeData Go's
// unicode package is built from).
locale_t utf8_ctype() {
  static const locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", locale_t{});
  return loc;
}

// strings.ToUpper / ToLower: every character mapped; an invalid byte becomes U+FFFD (three
// bytes for one). nullopt once the result exceeds max_bytes.
std::optional<std::string> change_case(const std::string& s, bool upper, std::size_t max_bytes) {
  std::string out;
  locale_t loc = utf8_ctype();
  for (std::size_t i = 0; i < s.size();) {
    if (out.size() > max_bytes) return std::nullopt;
    std::uint32_t cp = 0;
    std::size_t n = decode_utf8(s, i, cp);
    i += n;
    if (cp < 0x80) {
      if (upper && cp >= 'a' && cp <= 'z') cp -= 32;
      if (!upper && cp >= 'A' && cp <= 'Z') cp += 32;
    } else if (loc != locale_t{}) {
      auto w = static_cast<wint_t>(cp);
      cp = static_cast<std::uint32_t>(upper ? towupper_l(w, loc) : towlower_l(w, loc));
    }
    append_utf8(out, cp);
  }
  if (out.size() > max_bytes) return std::nullopt;
  return out;
}

// sprig's indent: strings.Repeat refuses a negative count (Go panics; the template call fails).
// The padding goes before every line, so its size is known before building: spaces x lines.
result<std::string> indent_text(std::int64_t spaces, const std::string& v, std::size_t max_bytes) {
  if (spaces < 0) return make_error("function", "strings: negative Repeat count");
  auto lines = static_cast<std::size_t>(std::count(v.begin(), v.end(), '\n')) + 1;
  if (!fits(max_bytes, v.size(), lines, static_cast<std::uint64_t>(spaces))) return over_budget();
  std::string pad(static_cast<std::size_t>(spaces), ' ');
  std::string out;
  out.reserve(v.size() + lines * pad.size());
  out += pad;
  for (char c : v) {
    out.push_back(c);
    if (c == '\n') out += pad;
  }
  return out;
}

// strings.ReplaceAll: an empty old string matches before every code point and at the end.
// nullopt once the result exceeds max_bytes: every match can add all of repl.
std::optional<std::string> replace_all(const std::string& s, const std::string& old,
                                       const std::string& repl, std::size_t max_bytes) {
  std::string out;
  if (old.empty()) {
    for (std::size_t i = 0; i < s.size();) {
      if (out.size() > max_bytes) return std::nullopt;
      std::uint32_t cp = 0;
      std::size_t n = decode_utf8(s, i, cp);
      out += repl;
      out.append(s, i, n);
      i += n;
    }
    out += repl;
    if (out.size() > max_bytes) return std::nullopt;
    return out;
  }
  std::size_t pos = 0;
  while (true) {
    if (out.size() > max_bytes) return std::nullopt;
    auto f = s.find(old, pos);
    if (f == std::string::npos) break;
    out.append(s, pos, f - pos);
    out += repl;
    pos = f + old.size();
  }
  out.append(s, pos);
  if (out.size() > max_bytes) return std::nullopt;
  return out;
}

// strings.Split: a []string. Each part costs a value as well as its bytes (budget_bytes), so
// splitting a long string at every character is refused once that exceeds max_bytes.
result<value> split(const std::string& s, const std::string& sep, std::size_t max_bytes) {
  std::vector<std::string> parts;
  std::size_t bytes = 0;
  auto add = [&](std::string part) {
    bytes += sizeof(value) + part.size();
    parts.push_back(std::move(part));
    return bytes <= max_bytes;
  };
  if (sep.empty()) {
    for (std::size_t i = 0; i < s.size();) {
      std::uint32_t cp = 0;
      std::size_t n = decode_utf8(s, i, cp);
      if (!add(s.substr(i, n))) return over_budget();
      i += n;
    }
    return value::strings(parts);
  }
  std::size_t pos = 0;
  while (true) {
    auto f = s.find(sep, pos);
    if (f == std::string::npos) break;
    if (!add(s.substr(pos, f - pos))) return over_budget();
    pos = f + sep.size();
  }
  if (!add(s.substr(pos))) return over_budget();
  return value::strings(parts);
}

// sprig's quote: each non-nil argument as Go's %q of its string form, separated by spaces.
result<value> quote(std::span<const value> args, std::size_t max_bytes) {
  std::string out;
  bool first = true;
  for (const auto& v : args) {
    if (v.is_null()) continue;
    if (!first) out.push_back(' ');
    first = false;
    // Quoting never shortens, and one argument can be passed any number of times.
    std::string formatted;
    const std::string& text = v.is_string() ? v.as_string() : (formatted = format_go_value(v));
    if (!fits(max_bytes, out.size(), 1, text.size() + 2)) return over_budget();
    out += go_quote(text);
  }
  return value(std::move(out));
}

// strings.Join: the separator goes between every two elements, so its total is known first.
result<value> join(const value& elems, const std::string& sep, std::size_t max_bytes) {
  if (elems.is_null()) return value("");
  if (!elems.is_list()) return wrong_type("[]string", elems);
  const auto& items = elems.as_list();
  if (!items.empty() && !fits(max_bytes, 0, items.size() - 1, sep.size())) return over_budget();
  std::string out;
  bool first = true;
  for (const auto& v : items) {
    if (!first) out += sep;
    first = false;
    out += v.is_string() ? v.as_string() : format_go_value(v);
    if (out.size() > max_bytes) return over_budget();
  }
  return value(std::move(out));
}

}  // namespace

void add_string_functions(function_table& t) {
  using p = go_param;
  // indent(spaces int, v string) string; nindent is the same after a newline.
  for (bool newline : {false, true}) {
    t.add(newline ? "nindent" : "indent", {p::integer, p::string}, false,
          [newline](args_t a, std::size_t max_bytes) -> result<value> {
            auto n = int_arg(a[0]);
            if (!n) return n.error();
            KP_STRING_ARG(v, 1);
            const std::size_t prefix = newline ? 1 : 0;
            if (max_bytes < prefix) return over_budget();
            auto out = indent_text(*n, v, max_bytes - prefix);
            if (!out) return out.error();
            return value(newline ? "\n" + *out : std::move(*out));
          });
  }
  // quote(str ...any) string
  t.add("quote", {p::any}, true, quote);
  for (bool upper : {true, false}) {
    t.add(upper ? "upper" : "lower", {p::string}, false,
          [upper](args_t a, std::size_t max_bytes) -> result<value> {
            KP_STRING_ARG(s, 0);
            auto out = change_case(s, upper, max_bytes);
            if (!out) return over_budget();
            return value(std::move(*out));
          });
  }
  t.add("trim", {p::string}, false, [](args_t a) -> result<value> {
    KP_STRING_ARG(s, 0);
    return value(trim_space(s));
  });
  // trimSuffix(suffix, s), trimPrefix(prefix, s)
  t.add("trimSuffix", {p::string, p::string}, false, [](args_t a) -> result<value> {
    KP_STRING_ARG(suffix, 0);
    KP_STRING_ARG(s, 1);
    if (s.ends_with(suffix)) return value(s.substr(0, s.size() - suffix.size()));
    return value(s);
  });
  t.add("trimPrefix", {p::string, p::string}, false, [](args_t a) -> result<value> {
    KP_STRING_ARG(prefix, 0);
    KP_STRING_ARG(s, 1);
    if (s.starts_with(prefix)) return value(s.substr(prefix.size()));
    return value(s);
  });
  // split(s, sep) []string: strings.Split.
  t.add("split", {p::string, p::string}, false,
        [](args_t a, std::size_t max_bytes) -> result<value> {
          KP_STRING_ARG(s, 0);
          KP_STRING_ARG(sep, 1);
          return split(s, sep, max_bytes);
        });
  // join(elems []string, sep string) string: strings.Join.
  t.add("join", {p::string_list, p::string}, false,
        [](args_t a, std::size_t max_bytes) -> result<value> {
          KP_STRING_ARG(sep, 1);
          return join(a[0], sep, max_bytes);
        });
  // replace(old, new, s string) string
  t.add("replace", {p::string, p::string, p::string}, false,
        [](args_t a, std::size_t max_bytes) -> result<value> {
          KP_STRING_ARG(old, 0);
          KP_STRING_ARG(repl, 1);
          KP_STRING_ARG(s, 2);
          auto out = replace_all(s, old, repl, max_bytes);
          if (!out) return over_budget();
          return value(std::move(*out));
        });
  // contains(substr, s), hasPrefix(prefix, s), hasSuffix(suffix, s)
  t.add("contains", {p::string, p::string}, false, [](args_t a) -> result<value> {
    KP_STRING_ARG(sub, 0);
    KP_STRING_ARG(s, 1);
    return value(s.find(sub) != std::string::npos);
  });
  t.add("hasPrefix", {p::string, p::string}, false, [](args_t a) -> result<value> {
    KP_STRING_ARG(p, 0);
    KP_STRING_ARG(s, 1);
    return value(s.starts_with(p));
  });
  t.add("hasSuffix", {p::string, p::string}, false, [](args_t a) -> result<value> {
    KP_STRING_ARG(p, 0);
    KP_STRING_ARG(s, 1);
    return value(s.ends_with(p));
  });
}

#undef KP_STRING_ARG

}  // namespace kp::gotemplate
