#include "core/gotemplate/function_table.hpp"

#include <cmath>

namespace kp::gotemplate {

function_table& function_table::add(std::string name, int min_args, int max_args,
                                    function_impl impl) {
  functions_[std::move(name)] = function_def{min_args, max_args, std::move(impl)};
  return *this;
}

const function_def* function_table::find(std::string_view name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : &it->second;
}

function_table& function_table::merge(const function_table& other) {
  for (const auto& [name, def] : other.functions_) functions_[name] = def;
  return *this;
}

kp::error wrong_type(std::string_view expected, const value& got) {
  return make_error(
      std::string(wrong_type_code),
      "wrong type for value; expected " + std::string(expected) + "; got " + got.type_name());
}

result<std::string> string_arg(const value& v) {
  if (!v.is_string()) return wrong_type("string", v);
  return v.as_string();
}

result<std::int64_t> int_arg(const value& v) {
  if (v.is_int()) return v.as_int();
  // Go converts an untyped constant like 2.0 to an int parameter; data of type float64 would
  // be refused, a difference we accept.
  if (v.is_double() && std::isfinite(v.as_double()) && std::trunc(v.as_double()) == v.as_double() &&
      std::fabs(v.as_double()) < 9.2e18) {
    return static_cast<std::int64_t>(v.as_double());
  }
  return wrong_type("int", v);
}

}  // namespace kp::gotemplate
