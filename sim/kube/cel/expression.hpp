#pragma once
// The syntax tree of a CEL expression (https://github.com/google/cel-spec, langdef.md): what the
// parser builds and the evaluator walks. Operators are calls with the spec's internal names
// ("_&&_", "_==_", "!_", "_[_]", "_?_:_", "@in"), macros are comprehensions, `has(a.b)` is a
// presence-test select.
#include <boost/json/value.hpp>
#include <memory>
#include <string>
#include <vector>

namespace kp::sim::kube::cel {

struct expression;
using expression_ptr = std::shared_ptr<const expression>;

enum class expression_kind {
  literal,        // value
  identifier,     // name
  select,         // operand.name; presence_test for has()
  call,           // name(args) or target.name(args)
  list,           // [args...]
  map,            // {args[0]: args[1], ...}
  comprehension,  // range.name(variable, args...) for all/exists/exists_one/map/filter
};

struct expression {
  expression_kind kind = expression_kind::literal;
  boost::json::value value;  // literal
  std::string name;          // identifier, field, function or macro name
  expression_ptr operand;    // select operand, call target (may be null), comprehension range
  std::vector<expression_ptr> args;
  std::string variable;  // comprehension variable
  bool presence_test = false;
  std::size_t position = 0;  // offset in the source, for messages
};

}  // namespace kp::sim::kube::cel
