#pragma once
// The CEL functions this interpreter provides beyond operators: size, the type conversions
// (int, uint, double, string, bool, dyn), the string library (contains, startsWith, endsWith,
// matches, lowerAscii, upperAscii, trim, split, join, indexOf, lastIndexOf, replace) and
// Kubernetes' regex library (find, findAll), all regexes through RE2 as cel-go uses.
#include <boost/json/value.hpp>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace re2 {
class RE2;
}

namespace kp::sim::kube::cel {

// Whether name(args) (method == false) or target.name(args) (method == true) with `arity`
// arguments is provided.
bool function_known(std::string_view name, bool method, std::size_t arity);

// Calls a provided function; for a method call args[0] is the target.
result<boost::json::value> call_function(std::string_view name, bool method,
                                         const std::vector<boost::json::value>& args);

// A regex in RE2 (Go) syntax, compiled once and shared; an error names what does not compile.
// CRD `pattern` checks use it too.
result<std::shared_ptr<const re2::RE2>> compiled_regex(const std::string& pattern);

// CEL's name for a value's type, for messages ("int", "string", "list", "map", ...).
std::string type_name(const boost::json::value& v);

error no_overload(std::string_view function, const std::vector<boost::json::value>& args);

}  // namespace kp::sim::kube::cel
