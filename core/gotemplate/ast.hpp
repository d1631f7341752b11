#pragma once
// The parse tree of a template, the shapes of Go's text/template/parse nodes. Every node keeps
// its byte offset (for "name:line:col" in errors) and its source text (for "at <...>").
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/gotemplate/value.hpp"

namespace kp::gotemplate {

struct pipeline_node;
struct list_node;

// An operand: what a command's words are.
struct operand_node {
  enum class kind {
    dot,         // .
    field,       // .A.B: path applies to dot
    variable,    // $x.A.B: name, then path
    identifier,  // a function name
    constant,    // string, number, bool, nil: constant holds the value
    pipeline,    // (a | b).A: the parenthesised pipeline, then path
  };
  kind type = kind::dot;
  std::size_t pos = 0;
  std::string source;             // the operand as written, for "at <...>"
  std::string name;               // variable or function name
  std::vector<std::string> path;  // field chain
  value constant;
  bool is_nil = false;  // the constant nil, which is not a command
  std::shared_ptr<pipeline_node> pipe;
};

struct command_node {
  std::size_t pos = 0;
  std::vector<operand_node> args;  // args[0] is the function, field or value
};

struct pipeline_node {
  std::size_t pos = 0;
  bool is_assign = false;         // $x = ... rather than $x := ...
  std::vector<std::string> decl;  // declared or assigned variables, with their "$"
  std::vector<command_node> cmds;
};

struct node {
  enum class kind { text, action, if_, range, with, template_call, break_, continue_ };
  kind type = kind::text;
  std::size_t pos = 0;
  std::string text;                      // text: the literal; template_call: the template name
  std::shared_ptr<pipeline_node> pipe;   // action, if, range, with, template_call (may be null)
  std::shared_ptr<list_node> list;       // if/range/with body
  std::shared_ptr<list_node> else_list;  // else branch, may be null
};

struct list_node {
  std::vector<node> nodes;
};

// A named template: its tree and the text it was parsed from (for line numbers).
struct template_tree {
  std::string name;
  std::string parse_name;  // the name the text was parsed under, for "template: NAME:LINE:"
  std::shared_ptr<list_node> root;
  std::shared_ptr<const std::string> source;
};

}  // namespace kp::gotemplate
