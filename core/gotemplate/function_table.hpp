#pragma once
// The functions a template may call, by name, with their arity. A function gets its evaluated
// arguments and returns a value or an error; the executor adds Go's wording around the error
// ("error calling NAME: ...", or the bare message for an argument of the wrong type).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/gotemplate/value.hpp"
#include "core/result.hpp"

namespace kp::gotemplate {

using function_impl = std::function<result<value>(std::span<const value> args)>;
// A function whose result can be far larger than its arguments (printf's widths, indent, join,
// replace...) also gets the bytes the call may still produce: what is left of the template's
// budget on function results (execution_limits::max_function_bytes). It checks that bound before
// building and returns over_budget() when the result would not fit.
using bounded_function_impl =
    std::function<result<value>(std::span<const value> args, std::size_t max_bytes)>;

// A Go parameter type, which decides how the executor converts and checks an argument as Go's
// evalArg/validateType do: constants are converted ("expected integer; found 2.5"), a missing
// map key becomes nil where the type can be nil and is refused elsewhere ("invalid value;
// expected string"), and a value of another type is refused ("wrong type for value; expected
// string; got int"), naming the argument.
enum class go_param {
  any,            // interface{}
  reflect_value,  // reflect.Value (the builtins): like any, but a missing value is refused
  string,
  integer,      // int
  boolean,      // bool
  string_list,  // []string
  string_map,   // map[string]string
  any_map,      // map[string]interface{}
};

struct function_def {
  int min_args = 0;
  int max_args = 0;  // -1: variadic
  bounded_function_impl impl;
  // The Go signature; when variadic, the last entry is the type of the variadic elements.
  // Empty: arguments are passed as evaluated, unchecked.
  std::vector<go_param> params;
  bool variadic = false;
};

class function_table {
 public:
  // Adds or replaces a function.
  function_table& add(std::string name, int min_args, int max_args, function_impl impl);
  // Adds a function with its Go signature: func(params...) or, when variadic,
  // func(params[0..n-2], ...params[n-1]).
  function_table& add(std::string name, std::vector<go_param> params, bool variadic,
                      function_impl impl);
  // The same for a function that bounds what it builds (see bounded_function_impl).
  function_table& add(std::string name, std::vector<go_param> params, bool variadic,
                      bounded_function_impl impl);
  const function_def* find(std::string_view name) const;
  bool contains(std::string_view name) const { return find(name) != nullptr; }
  // Adds every function of other, replacing those with the same name.
  function_table& merge(const function_table& other);

 private:
  std::map<std::string, function_def, std::less<>> functions_;
};

// text/template's predefined functions: and, or, not, len, index, slice, print, printf, println,
// eq, ne, lt, le, gt, ge, html, js, urlquery, call (refused). and/or are evaluated lazily by
// the executor; their entries here only declare them.
const function_table& builtin_functions();

// The Go Karpenter Proxmox provider's function map (kpp.md section 5) on top of the builtins.
const function_table& provider_functions();

// Error code of an argument of the wrong type: the executor reports the message without the
// "error calling" prefix, as Go does.
inline constexpr std::string_view wrong_type_code = "wrong_type";
// Error code of a result that would not fit in max_bytes: the executor names the function and
// the template's budget.
inline constexpr std::string_view over_budget_code = "over_budget";
kp::error over_budget();
// Whether base + count * each bytes fit in max_bytes (without overflowing on the way).
bool fits(std::size_t max_bytes, std::size_t base, std::uint64_t count, std::uint64_t each);
// What a value given to or returned by a function counts against the budgets: a string's
// bytes; a list's elements, each a value plus its string bytes. A map is never built by a
// function (only passed on, shared) nor scanned whole by one, so it counts nothing.
std::size_t budget_bytes(const value& v);

// Argument helpers with Go's messages ("wrong type for value; expected string; got int").
result<std::string> string_arg(const value& v);
result<std::int64_t> int_arg(const value& v);
kp::error wrong_type(std::string_view expected, const value& got);
// Go's spelling of a parameter type ("string", "[]string", "reflect.Value", ...).
std::string_view go_param_name(go_param p);
// Whether a parameter of this type takes nil, or a missing value, as its zero value: Go's
// canBeNil (interfaces, reflect.Value, slices, maps).
bool go_param_takes_nil(go_param p);

}  // namespace kp::gotemplate
