// The Go provider's regular expression functions, on Go's regexp semantics (go_regexp, RE2).
#include <string>

#include "core/gotemplate/go_regexp.hpp"
#include "core/gotemplate/provider_function_groups.hpp"

namespace kp::gotemplate {

namespace {

using args_t = std::span<const value>;

}  // namespace

void add_regex_functions(function_table& t) {
  using p = go_param;
  // regexFind(regex, s string) (string, error): the leftmost match.
  t.add("regexFind", {p::string, p::string}, false, [](args_t a) -> result<value> {
    auto re = string_arg(a[0]);
    if (!re) return re.error();
    auto s = string_arg(a[1]);
    if (!s) return s.error();
    auto rx = go_regexp::compile(*re);
    if (!rx) return rx.error();
    return value(rx->find(*s));
  });
  // regexFindString(regex, s string, n int) (string, error): submatch n of the first match;
  // "" when there are fewer, and Go's index panic for a negative n.
  t.add("regexFindString", {p::string, p::string, p::integer}, false,
        [](args_t a) -> result<value> {
          auto re = string_arg(a[0]);
          if (!re) return re.error();
          auto s = string_arg(a[1]);
          if (!s) return s.error();
          auto n = int_arg(a[2]);
          if (!n) return n.error();
          auto rx = go_regexp::compile(*re);
          if (!rx) return rx.error();
          auto groups = rx->find_submatch(*s);
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
          auto re = string_arg(a[0]);
          if (!re) return re.error();
          auto s = string_arg(a[1]);
          if (!s) return s.error();
          auto repl = string_arg(a[2]);
          if (!repl) return repl.error();
          auto rx = go_regexp::compile(*re);
          if (!rx) return rx.error();
          auto out = rx->replace_all(*s, *repl, max_bytes);
          if (!out) return over_budget();
          return value(std::move(*out));
        });
}

}  // namespace kp::gotemplate
