#pragma once
// CEL's grammar (conditional, ||, &&, relations incl. `in`, + - * / %, unary ! and -, member
// selection, indexing, calls, list and map literals) into an expression tree, with the standard
// macros expanded: has(), all(), exists(), exists_one(), map() and filter().
#include <string_view>

#include "core/result.hpp"
#include "sim/kube/cel/expression.hpp"

namespace kp::sim::kube::cel {

result<expression_ptr> parse(std::string_view source);

}  // namespace kp::sim::kube::cel
