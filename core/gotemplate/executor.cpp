#include "core/gotemplate/executor.hpp"

#include <cmath>
#include <exception>

#include "core/gotemplate/go_format.hpp"
#include "core/gotemplate/parser.hpp"

namespace kp::gotemplate {

namespace {

struct exec_failure {
  std::string message;
};

enum class flow { normal, break_loop, continue_loop };

class executor {
 public:
  executor(const template_trees& trees, const function_table& functions,
           const execution_limits& limits)
      : trees_(trees), functions_(functions), limits_(limits) {}

  std::string run(const template_tree& tree, const value& data) {
    current_ = &tree;
    vars_.push_back({"$", data});
    walk(*tree.root, data);
    return std::move(out_);
  }

 private:
  struct variable {
    std::string name;
    value val;
  };

  struct nesting {
    nesting(executor& e, std::size_t pos, std::string_view at) : e_(e) {
      if (++e_.nesting_ > e_.limits_.max_nesting_depth) {
        e_.fail(pos, at,
                "exceeded maximum nesting depth (" + std::to_string(e_.limits_.max_nesting_depth) +
                    ")");
      }
    }
    ~nesting() { --e_.nesting_; }
    executor& e_;
  };

  [[noreturn]] void fail(std::size_t pos, std::string_view at, const std::string& message) {
    auto [line, col] = line_and_column(*current_->source, pos);
    throw exec_failure{"template: " + current_->parse_name + ":" + std::to_string(line) + ":" +
                       std::to_string(col) + ": executing " + go_quote(current_->name) + " at <" +
                       std::string(at) + ">: " + message};
  }

  void step(std::size_t pos, std::string_view at) {
    if (++steps_ > limits_.max_steps) {
      fail(pos, at, "execution exceeded " + std::to_string(limits_.max_steps) + " steps");
    }
  }

  void emit(const std::string& s, std::size_t pos, std::string_view at) {
    out_ += s;
    if (out_.size() > limits_.max_output_bytes) {
      fail(pos, at, "output exceeds " + std::to_string(limits_.max_output_bytes) + " bytes");
    }
  }

  static std::string_view pipe_source(const pipeline_node* p) {
    if (!p || p->cmds.empty() || p->cmds[0].args.empty()) return {};
    return p->cmds[0].args[0].source;
  }

  flow walk(const list_node& list, const value& dot) {
    for (const auto& n : list.nodes) {
      flow f = walk_node(n, dot);
      if (f != flow::normal) return f;
    }
    return flow::normal;
  }

  flow walk_node(const node& n, const value& dot) {
    step(n.pos, pipe_source(n.pipe.get()));
    switch (n.type) {
      case node::kind::text:
        emit(n.text, n.pos, "");
        return flow::normal;
      case node::kind::action: {
        value v = eval_pipeline(*n.pipe, dot, true);
        if (n.pipe->decl.empty()) emit(format_action_value(v), n.pos, pipe_source(n.pipe.get()));
        return flow::normal;
      }
      case node::kind::if_:
      case node::kind::with:
        return walk_if_or_with(n, dot);
      case node::kind::range:
        return walk_range(n, dot);
      case node::kind::template_call:
        walk_template(n, dot);
        return flow::normal;
      case node::kind::break_:
        return flow::break_loop;
      case node::kind::continue_:
        return flow::continue_loop;
    }
    return flow::normal;
  }

  flow walk_if_or_with(const node& n, const value& dot) {
    nesting guard(*this, n.pos, pipe_source(n.pipe.get()));
    std::size_t mark = vars_.size();
    value v = eval_pipeline(*n.pipe, dot, true);
    flow f = flow::normal;
    if (v.truthy()) {
      f = walk(*n.list, n.type == node::kind::with ? v : dot);
    } else if (n.else_list) {
      f = walk(*n.else_list, dot);
    }
    vars_.resize(mark);
    return f;
  }

  flow walk_range(const node& n, const value& dot) {
    nesting guard(*this, n.pos, pipe_source(n.pipe.get()));
    std::size_t outer = vars_.size();
    // As Go's walkRange: the pipeline's variables are declared (or assigned) the whole value,
    // then each iteration sets the top variable to the element and the one below to the index.
    value v = eval_pipeline(*n.pipe, dot, true);
    std::size_t mark = vars_.size();
    const auto decls = n.pipe->decl.size();
    auto one = [&](const value& key, const value& elem) {
      if (decls > 0 && !vars_.empty()) vars_.back().val = elem;
      if (decls > 1 && vars_.size() > 1) vars_[vars_.size() - 2].val = key;
      flow f = walk(*n.list, elem);
      vars_.resize(mark);
      return f;
    };
    std::size_t count = 0;
    if (v.is_list()) {
      const auto& items = v.as_list();
      for (std::size_t i = 0; i < items.size(); ++i, ++count) {
        if (one(value(static_cast<std::int64_t>(i)), items[i]) == flow::break_loop) break;
      }
    } else if (v.is_map() && !v.is_record()) {
      for (const auto& e : v.as_map().entries) {
        ++count;
        if (one(value(e.key), e.val) == flow::break_loop) break;
      }
    } else if (v.is_int()) {
      // Go 1.22: ranging over n yields 0..n-1 (one variable receives the counter).
      if (decls == 2)
        fail(n.pos, pipe_source(n.pipe.get()),
             "can't use " + format_go_value(v) + " to iterate over more than one variable");
      for (std::int64_t i = 0; i < v.as_int(); ++i, ++count) {
        step(n.pos, pipe_source(n.pipe.get()));
        if (one(value(i), value(i)) == flow::break_loop) break;
      }
    } else if (!v.is_null()) {
      // A missing or nil value ranges over nothing; anything else is an error.
      fail(n.pos, pipe_source(n.pipe.get()), "range can't iterate over " + format_go_value(v));
    }
    if (count == 0 && n.else_list) walk(*n.else_list, dot);
    vars_.resize(outer);
    return flow::normal;
  }

  void walk_template(const node& n, const value& dot) {
    auto it = trees_.find(n.text);
    std::string at = "{{template " + go_quote(n.text) + "}}";
    if (it == trees_.end()) fail(n.pos, at, "template " + go_quote(n.text) + " not defined");
    if (template_depth_ >= limits_.max_template_depth) {
      fail(n.pos, at,
           "exceeded maximum template depth (" + std::to_string(limits_.max_template_depth) + ")");
    }
    value new_dot = n.pipe ? eval_pipeline(*n.pipe, dot, false) : value();
    nesting guard(*this, n.pos, at);
    auto saved_vars = std::move(vars_);
    const template_tree* saved_tree = current_;
    vars_ = {{"$", new_dot}};
    current_ = &it->second;
    ++template_depth_;
    walk(*it->second.root, new_dot);
    --template_depth_;
    current_ = saved_tree;
    vars_ = std::move(saved_vars);
  }

  value eval_pipeline(const pipeline_node& p, const value& dot, bool apply_decls) {
    value v;
    bool first = true;
    for (const auto& cmd : p.cmds) {
      v = eval_command(cmd, dot, first ? nullptr : &v);
      first = false;
      // Go's evalPipeline unwraps an interface{} result: a nil one becomes the invalid value
      // (printed "<no value>", refused by typed parameters as "invalid value").
      if (v.is_null() && !v.is_nil_pointer()) v = value::missing();
    }
    if (apply_decls) {
      for (const auto& name : p.decl) {
        if (p.is_assign) {
          set_var(name, v, p.pos);
        } else {
          vars_.push_back({name, v});
        }
      }
    }
    return v;
  }

  void set_var(const std::string& name, const value& v, std::size_t pos) {
    for (auto it = vars_.rbegin(); it != vars_.rend(); ++it) {
      if (it->name == name) {
        it->val = v;
        return;
      }
    }
    fail(pos, name, "undefined variable: " + name);
  }

  const value& var(const operand_node& op) {
    for (auto it = vars_.rbegin(); it != vars_.rend(); ++it) {
      if (it->name == op.name) return it->val;
    }
    fail(op.pos, op.source, "undefined variable: " + op.name);
  }

  value eval_command(const command_node& cmd, const value& dot, const value* final) {
    const operand_node& first = cmd.args.front();
    step(first.pos, first.source);
    bool has_args = cmd.args.size() > 1 || final != nullptr;
    switch (first.type) {
      case operand_node::kind::field:
        return fields(dot, first, has_args);
      case operand_node::kind::variable:
        if (first.path.empty() && has_args) not_a_function(first);
        return fields(var(first), first, has_args);
      case operand_node::kind::identifier: {
        value v = call(first, std::span(cmd.args).subspan(1), dot, final);
        if (!first.path.empty()) return fields(v, first, false);
        return v;
      }
      case operand_node::kind::pipeline: {
        if (first.path.empty() && has_args) not_a_function(first);
        nesting guard(*this, first.pos, first.source);
        return fields(eval_pipeline(*first.pipe, dot, false), first, has_args);
      }
      case operand_node::kind::dot:
        if (has_args) not_a_function(first);
        return dot;
      case operand_node::kind::constant:
        if (first.is_nil) fail(first.pos, first.source, "nil is not a command");
        if (has_args) not_a_function(first);
        return ideal_constant(first);
    }
    return value();
  }

  [[noreturn]] void not_a_function(const operand_node& op) {
    fail(op.pos, op.source, "can't give argument to non-function " + op.source);
  }

  // Applies op.path to receiver; the last field gets the arguments, which only methods take.
  value fields(const value& receiver, const operand_node& op, bool has_args) {
    value cur = receiver;
    for (std::size_t i = 0; i < op.path.size(); ++i) {
      const std::string& name = op.path[i];
      bool last = i + 1 == op.path.size();
      // Go's evalField: a missing value stays missing; a nil one cannot have fields.
      if (cur.is_missing()) return value::missing();
      if (cur.is_null()) fail(op.pos, op.source, "nil pointer evaluating interface {}." + name);
      if (!cur.is_map()) {
        fail(op.pos, op.source, "can't evaluate field " + name + " in type " + cur.type_name());
      }
      if (last && has_args) fail(op.pos, op.source, name + " is not a method but has arguments");
      const value* v = cur.find(name);
      if (v) {
        cur = *v;
      } else if (cur.is_record()) {
        fail(op.pos, op.source, "can't evaluate field " + name + " in type struct");
      } else {
        cur = value::missing();  // Go's default missingkey: the invalid value, "<no value>"
      }
    }
    return cur;
  }

  // Go's idealConstant: a number constant as a value of type int or float64.
  value ideal_constant(const operand_node& op) {
    const value& c = op.constant;
    if (!c.is_double()) return c;
    const std::string& t = op.source;
    std::string_view digits = t;
    if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) digits.remove_prefix(1);
    bool hex_int = digits.size() > 2 && digits[0] == '0' &&
                   (digits[1] == 'x' || digits[1] == 'X') &&
                   digits.find_first_of("pP") == std::string_view::npos;
    bool rune = !digits.empty() && digits[0] == '\'';
    if (!hex_int && !rune && t.find_first_of(".eEpP") != std::string::npos) return c;
    // An integer beyond int64 (the parser refuses those beyond uint64).
    fail(op.pos, op.source, t + " overflows int");
  }

  // Go's evalArg for a constant given to a parameter of type `want`.
  value constant_arg(const operand_node& op, go_param want) {
    std::string type(go_param_name(want));
    if (op.is_nil) {
      if (go_param_takes_nil(want)) return value();
      fail(op.pos, op.source, "cannot assign nil to " + type);
    }
    const value& c = op.constant;
    switch (want) {
      case go_param::any:
      case go_param::reflect_value:
        return ideal_constant(op);
      case go_param::string:
        if (c.is_string()) return c;
        fail(op.pos, op.source, "expected string; found " + op.source);
      case go_param::boolean:
        if (c.is_bool()) return c;
        fail(op.pos, op.source, "expected bool; found " + op.source);
      case go_param::integer:
        if (c.is_int()) return c;
        if (c.is_double() && std::isfinite(c.as_double()) &&
            std::trunc(c.as_double()) == c.as_double() && std::fabs(c.as_double()) < 9.2e18) {
          return value(static_cast<std::int64_t>(c.as_double()));
        }
        fail(op.pos, op.source, "expected integer; found " + op.source);
      default:
        fail(op.pos, op.source, "can't handle " + op.source + " for arg of type " + type);
    }
  }

  // Go's validateType: a value given to a parameter of type `want`.
  value validate(const value& v, go_param want, std::size_t pos, std::string_view at) {
    std::string type(go_param_name(want));
    if (v.is_missing()) {
      if (go_param_takes_nil(want)) return value();
      fail(pos, at, "invalid value; expected " + type);
    }
    bool ok = false;
    switch (want) {
      case go_param::any:
      case go_param::reflect_value:
        ok = true;
        break;
      case go_param::string:
        ok = v.is_string();
        break;
      case go_param::integer:
        ok = v.is_int();
        break;
      case go_param::boolean:
        ok = v.is_bool();
        break;
      case go_param::string_list:
        ok = v.is_string_list();
        break;
      case go_param::string_map:
        ok = v.is_map() && v.as_map().flavour == value::map_flavour::string_map;
        break;
      case go_param::any_map:
        ok = v.is_map() && v.as_map().flavour == value::map_flavour::any_map;
        break;
    }
    if (!ok) fail(pos, at, "wrong type for value; expected " + type + "; got " + v.type_name());
    return v;
  }

  // Go's evalArg: evaluates an argument for a parameter of type `want`.
  value typed_arg(const operand_node& op, go_param want, const value& dot) {
    at_pos_ = op.pos;
    at_ = op.source;
    if (op.type == operand_node::kind::constant && op.path.empty()) return constant_arg(op, want);
    return validate(eval_arg(op, dot), want, op.pos, op.source);
  }

  value eval_arg(const operand_node& op, const value& dot) {
    switch (op.type) {
      case operand_node::kind::dot:
        return dot;
      case operand_node::kind::field:
        return fields(dot, op, false);
      case operand_node::kind::variable:
        return fields(var(op), op, false);
      case operand_node::kind::identifier: {
        value v = call(op, {}, dot, nullptr);
        return fields(v, op, false);
      }
      case operand_node::kind::pipeline: {
        nesting guard(*this, op.pos, op.source);
        return fields(eval_pipeline(*op.pipe, dot, false), op, false);
      }
      case operand_node::kind::constant:
        return op.is_nil ? value() : ideal_constant(op);
    }
    return value();
  }

  value call(const operand_node& fn, std::span<const operand_node> arg_nodes, const value& dot,
             const value* final) {
    const function_def* def = functions_.find(fn.name);
    if (!def) fail(fn.pos, fn.source, "function " + go_quote(fn.name) + " not defined");
    std::size_t n = arg_nodes.size() + (final ? 1 : 0);
    check_arity(fn, *def, n, arg_nodes.size());
    at_pos_ = fn.pos;
    at_ = fn.source;
    auto param = [&](std::size_t i) {
      if (def->params.empty()) return go_param::any;
      if (i + 1 >= def->params.size()) return def->params.back();
      return def->params[i];
    };
    auto arg = [&](std::size_t i) {
      if (def->params.empty()) {
        at_pos_ = arg_nodes[i].pos;
        at_ = arg_nodes[i].source;
        return eval_arg(arg_nodes[i], dot);
      }
      return typed_arg(arg_nodes[i], param(i), dot);
    };
    // The piped value is checked against its parameter where Go last pointed: the function, or
    // its last argument.
    auto final_arg = [&] {
      if (def->params.empty()) return *final;
      return validate(*final, param(n - 1), at_pos_, at_);
    };
    if (fn.name == "and" || fn.name == "or") {
      // Short-circuit: stop at the first argument that decides the result.
      bool want = fn.name == "or";
      value v;
      for (std::size_t i = 0; i < arg_nodes.size(); ++i) {
        v = arg(i);
        if (v.truthy() == want) return v;
      }
      if (final) v = final_arg();
      return v;
    }
    std::vector<value> args;
    args.reserve(n);
    for (std::size_t i = 0; i < arg_nodes.size(); ++i) args.push_back(arg(i));
    if (final) args.push_back(final_arg());
    for (const auto& a : args) function_input_bytes_ += budget_bytes(a);
    if (function_input_bytes_ > limits_.max_function_input_bytes) {
      fail(fn.pos, fn.source,
           "error calling " + fn.name +
               ": function arguments would exceed the template's budget of " +
               std::to_string(limits_.max_function_input_bytes) + " bytes read");
    }
    result<value> r = value();
    try {
      r = def->impl(args, limits_.max_function_bytes - function_bytes_);
    } catch (const std::exception& e) {
      r = make_error("function", e.what());  // no exception leaves the engine
    }
    if (r) {
      function_bytes_ += budget_bytes(*r);
      if (function_bytes_ > limits_.max_function_bytes) r = over_budget();
    }
    if (!r) {
      if (r.error().code == wrong_type_code) fail(fn.pos, fn.source, r.error().message);
      if (r.error().code == over_budget_code) {
        fail(fn.pos, fn.source,
             "error calling " + fn.name +
                 ": function results would exceed the template's budget of " +
                 std::to_string(limits_.max_function_bytes) + " bytes");
      }
      fail(fn.pos, fn.source, "error calling " + fn.name + ": " + r.error().message);
    }
    return std::move(*r);
  }

  // Go counts the piped value, but reports only the written arguments for a variadic function.
  void check_arity(const operand_node& fn, const function_def& def, std::size_t n,
                   std::size_t written) {
    auto got = static_cast<int>(n);
    std::string prefix = "wrong number of args for " + fn.name + ": want ";
    if (def.max_args < 0) {
      if (got < def.min_args) {
        fail(fn.pos, fn.source,
             prefix + "at least " + std::to_string(def.min_args) + " got " +
                 std::to_string(written));
      }
    } else if (def.min_args == def.max_args) {
      if (got != def.min_args) {
        fail(fn.pos, fn.source,
             prefix + std::to_string(def.min_args) + " got " + std::to_string(got));
      }
    } else if (got < def.min_args || got > def.max_args) {
      fail(fn.pos, fn.source,
           prefix + std::to_string(def.min_args) + " to " + std::to_string(def.max_args) + " got " +
               std::to_string(got));
    }
  }

  const template_trees& trees_;
  const function_table& functions_;
  const execution_limits& limits_;
  const template_tree* current_ = nullptr;
  std::vector<variable> vars_;
  std::string out_;
  int template_depth_ = 0;
  int nesting_ = 0;
  // The node Go's state points at (s.at): errors of a piped value name it.
  std::size_t at_pos_ = 0;
  std::string_view at_;
  std::uint64_t steps_ = 0;
  std::size_t function_bytes_ = 0;  // never above limits_.max_function_bytes
  std::size_t function_input_bytes_ = 0;
};

}  // namespace

result<std::string> execute_template(const template_trees& trees, std::string_view name,
                                     const function_table& functions, const value& data,
                                     const execution_limits& limits) {
  auto it = trees.find(name);
  if (it == trees.end()) {
    return make_error("template_exec", "template: no template " + go_quote(name) + " defined");
  }
  try {
    return executor(trees, functions, limits).run(it->second, data);
  } catch (const exec_failure& f) {
    return make_error("template_exec", f.message);
  }
}

}  // namespace kp::gotemplate
