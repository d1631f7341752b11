#include "core/gotemplate/function_table.hpp"

#include <cmath>

namespace kp::gotemplate {

namespace {

// A function that builds no more than its arguments' size (or a small multiple): the executor's
// count of what it returned is bound enough.
bounded_function_impl unbounded(function_impl impl) {
  return [impl = std::move(impl)](std::span<const value> args, std::size_t) { return impl(args); };
}

}  // namespace

function_table& function_table::add(std::string name, int min_args, int max_args,
                                    function_impl impl) {
  functions_[std::move(name)] = function_def{min_args, max_args, unbounded(std::move(impl))};
  return *this;
}

function_table& function_table::add(std::string name, std::vector<go_param> params, bool variadic,
                                    function_impl impl) {
  return add(std::move(name), std::move(params), variadic, unbounded(std::move(impl)));
}

function_table& function_table::add(std::string name, std::vector<go_param> params, bool variadic,
                                    bounded_function_impl impl) {
  auto fixed = static_cast<int>(params.size()) - (variadic ? 1 : 0);
  function_def def{fixed, variadic ? -1 : fixed, std::move(impl), std::move(params), variadic};
  functions_[std::move(name)] = std::move(def);
  return *this;
}

std::string_view go_param_name(go_param p) {
  switch (p) {
    case go_param::any:
      return "interface {}";
    case go_param::reflect_value:
      return "reflect.Value";
    case go_param::string:
      return "string";
    case go_param::integer:
      return "int";
    case go_param::boolean:
      return "bool";
    case go_param::string_list:
      return "[]string";
    case go_param::string_map:
      return "map[string]string";
    case go_param::any_map:
      return "map[string]interface {}";
  }
  return "?";
}

bool go_param_takes_nil(go_param p) {
  switch (p) {
    case go_param::any:
    case go_param::reflect_value:
    case go_param::string_list:
    case go_param::string_map:
    case go_param::any_map:
      return true;
    case go_param::string:
    case go_param::integer:
    case go_param::boolean:
      return false;
  }
  return false;
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

kp::error over_budget() {
  return make_error(std::string(over_budget_code), "result over the template's budget");
}

bool fits(std::size_t max_bytes, std::size_t base, std::uint64_t count, std::uint64_t each) {
  if (base > max_bytes) return false;
  return each == 0 || count <= (max_bytes - base) / each;
}

std::size_t budget_bytes(const value& v) {
  if (v.is_string()) return v.as_string().size();
  if (!v.is_list()) return 0;
  std::size_t bytes = 0;
  for (const auto& e : v.as_list()) bytes += sizeof(value) + budget_bytes(e);
  return bytes;
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
