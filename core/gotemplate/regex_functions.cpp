// The Go provider's regular expression functions, on Go's regexp semantics (go_regexp, RE2).
#include <string>

#include "core/gotemplate/go_regexp.hpp"
#include "core/gotemplate/provider_function_groups.hpp"

namespace kp::gotemplate {

namespace {

using args_t = std::span<const value>;

// Every regex function's first two arguments: the pattern, compiled, and the text (checked to
// be a string, read in place rather than copied).
result<go_regexp> pattern_of(args_t a) {
  auto re = string_arg(a[0]);
  if (!re) return re.error();
  if (!a[1].is_string()) return wrong_type("string", a[1]);
  return go_regexp::compile(*re);
}

}  // namespace

void add_regex_functions(function_table& t) {
  using p = go_param;
  // regexFind(regex, s string) (string, error): the leftmost match.
  t.add("regexFind", {p::string, p::string}, false, [](args_t a) -> result<value> {
    auto rx = pattern_of(a);
    if (!rx) return rx.error();
    return value(rx->find(a[1].as_string()));
  });
  // regexFindString(regex, s string, n int) (string, error): submatch n of the first match;
  // "" when there are fewer, and Go's index panic for a negative n.
  t.add("regexFindString", {p::string, p::string, p::integer}, false,
        [](args_t a) -> result<value> {
          auto n = int_arg(a[2]);
          if (!n) return n.error();
          auto rx = pattern_of(a);
          if (!rx) return rx.error();
          auto groups = rx->find_submatch(a[1].as_string());
          if (*n >= 0 && static_cast<std::uint64_t>(*n) + 1 > groups.size()) return value("");
          if (*n < 0) {
            std::string message = "runtime error: index out of range [" + std::to_string(*n) + "]";
            return make_error("function", message);
          }
          return value(groups[static_cast<std::size_t>(*n)]);
        });
  // regexReplaceAll(regex, s, repl string) (string, error): Go's ReplaceAllString.
  t.add("regexReplaceAll", {p::string, p::string, p::string}, false,
        [](args_t a, std::size_t max_bytes) -> result<value> {
          auto rx = pattern_of(a);
          if (!rx) return rx.error();
          if (!a[2].is_string()) return wrong_type("string", a[2]);
          auto out = rx->replace_all(a[1].as_string(), a[2].as_string(), max_bytes);
          if (!out) return over_budget();
          return value(std::move(*out));
        });
}

}  // namespace kp::gotemplate
