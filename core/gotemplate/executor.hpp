#pragma once
// Runs a parsed template over data, with Go's semantics and error wording
// ("template: NAME:LINE:COL: executing \"NAME\" at <.A.b>: REASON").
#include <cstdint>
#include <map>
#include <string>

#include "core/gotemplate/ast.hpp"
#include "core/gotemplate/function_table.hpp"
#include "core/gotemplate/value.hpp"
#include "core/result.hpp"

namespace kp::gotemplate {

// Bounds that keep a hostile or mistaken template from exhausting the stack, memory or time.
struct execution_limits {
  int max_template_depth = 100;  // nested {{template}} calls (Go allows 100000)
  int max_nesting_depth = 1000;  // bodies and parenthesised pipelines being evaluated
  std::size_t max_output_bytes = 64u << 20;
  std::uint64_t max_steps = 50'000'000;  // nodes and commands evaluated
  // Bytes of all the results functions return, counted over the whole render whether or not
  // they reach the output: a printf width, an indent or a join builds megabytes from a few bytes
  // of template, and a pipeline or a loop can drop them before the output limit sees any. Real
  // user-data is kilobytes, so a real template's functions return a thousandth of this; the
  // worst hostile render it allows (a width repeated over the data) takes 0.7 s and 118 MiB,
  // where four times the output limit took 1.6 s and 205 MiB (bench/template/README.md).
  std::size_t max_function_bytes = 64u << 20;
  // Bytes of the strings and lists given to functions, counted over the whole render: eq,
  // contains or regexFind read their arguments whole, so a 10 MB string compared in a loop of
  // the 50M steps would take hours though it builds nothing. Reading is cheaper than building:
  // a gigabyte is a fraction of a second, and a million times what a real template reads.
  std::size_t max_function_input_bytes = 1u << 30;
};

using template_trees = std::map<std::string, template_tree, std::less<>>;

// error code "template_exec".
result<std::string> execute_template(const template_trees& trees, std::string_view name,
                                     const function_table& functions, const value& data,
                                     const execution_limits& limits);

}  // namespace kp::gotemplate
