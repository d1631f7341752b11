#include "core/gotemplate/parser.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "core/gotemplate/go_format.hpp"
#include "core/gotemplate/lexer.hpp"
#include "core/gotemplate/literal.hpp"

namespace kp::gotemplate {

namespace {

// Deep nesting of parentheses or control structures is refused so the recursive parser and
// executor stay far from the end of the stack.
constexpr int max_nesting_depth = 256;

// An integer constant beyond uint64 (Go's parser refuses it rather than reading a float).
bool is_integer_overflow(std::string_view text) {
  std::string_view s = text;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  if (s.empty() || s.find_first_not_of("0123456789_") != std::string_view::npos) return false;
  std::string digits;
  for (char c : s) {
    if (c != '_') digits.push_back(c);
  }
  while (digits.size() > 1 && digits[0] == '0') digits.erase(0, 1);
  return digits.size() > 20 || (digits.size() == 20 && digits > "18446744073709551615");
}

struct parse_failure {
  std::size_t pos;
  std::string message;
};

class parser {
 public:
  parser(const std::string& name, std::string_view text, std::vector<token> tokens,
         const std::function<bool(std::string_view)>& has_function)
      : name_(name), text_(text), toks_(std::move(tokens)), has_function_(has_function) {}

  parse_output run() {
    parse_output out;
    auto source = std::make_shared<const std::string>(text_);
    source_ = source;
    auto root = std::make_shared<list_node>();
    while (peek().kind != token_kind::eof) {
      if (peek().kind == token_kind::left_delim) {
        std::size_t save = i_;
        next();
        if (next_non_space().kind == token_kind::keyword_define) {
          parse_definition(out);
          continue;
        }
        i_ = save;
      }
      item n = text_or_action();
      if (n.end || n.else_)
        fail(n.pos, std::string("unexpected ") + (n.end ? "{{end}}" : "{{else}}"));
      root->nodes.push_back(std::move(n.n));
    }
    add_tree(out, name_, root, 0);
    for (auto& b : blocks_) add_tree(out, b.name, b.list, b.pos);
    return out;
  }

 private:
  // A parsed item of a list: a node, or the {{end}} / {{else}} that closes the list.
  struct item {
    node n;
    bool end = false;
    bool else_ = false;
    std::size_t pos = 0;
  };

  [[noreturn]] void fail(std::size_t pos, std::string message) {
    throw parse_failure{pos, std::move(message)};
  }
  [[noreturn]] void unexpected(const token& t, std::string_view context) {
    if (t.kind == token_kind::error) fail(t.pos, t.message);
    fail(t.pos, "unexpected " + describe_token(t) + " in " + std::string(context));
  }

  const token& peek() const { return toks_[std::min(i_, toks_.size() - 1)]; }
  const token& next() {
    const token& t = peek();
    if (i_ < toks_.size() - 1) ++i_;
    if (t.kind == token_kind::error) fail(t.pos, t.message);
    return t;
  }
  const token& next_non_space() {
    while (peek().kind == token_kind::space) next();
    return next();
  }
  const token& peek_non_space() {
    while (peek().kind == token_kind::space) next();
    return peek();
  }
  std::size_t end_of_previous() const {
    const token& t = toks_[i_ == 0 ? 0 : i_ - 1];
    return t.pos + t.text.size();
  }

  const token& expect(token_kind k, std::string_view context) {
    const token& t = next_non_space();
    if (t.kind != k) unexpected(t, context);
    return t;
  }

  void add_tree(parse_output& out, const std::string& name, std::shared_ptr<list_node> root,
                std::size_t pos) {
    auto it = out.trees.find(name);
    if (it != out.trees.end() && !is_empty(*it->second.root)) {
      if (is_empty(*root)) return;
      fail(pos, "template: multiple definition of template " + go_quote(name));
    }
    out.trees[name] = template_tree{name, name_, std::move(root), source_};
  }

  static bool is_empty(const list_node& l) {
    return std::all_of(l.nodes.begin(), l.nodes.end(), [](const node& n) {
      return n.type == node::kind::text && n.text.find_first_not_of(" \t\r\n") == std::string::npos;
    });
  }

  std::string template_name(const token& t, std::string_view context) {
    std::string s;
    if (t.kind != token_kind::string && t.kind != token_kind::raw_string) unexpected(t, context);
    if (!unquote_literal(t.text, s)) fail(t.pos, "invalid syntax");
    return s;
  }

  void parse_definition(parse_output& out) {
    const token& t = next_non_space();
    std::string name = template_name(t, "define clause");
    expect(token_kind::right_delim, "define clause");
    auto saved_vars = std::move(vars_);
    int saved_range = range_depth_;
    vars_ = {"$"};
    range_depth_ = 0;
    auto [list, end] = item_list();
    if (!end.end) fail(end.pos, "unexpected {{else}} in define clause");
    vars_ = std::move(saved_vars);
    range_depth_ = saved_range;
    add_tree(out, name, list, t.pos);
  }

  std::pair<std::shared_ptr<list_node>, item> item_list() {
    auto list = std::make_shared<list_node>();
    while (peek_non_space().kind != token_kind::eof) {
      item n = text_or_action();
      if (n.end || n.else_) return {list, std::move(n)};
      list->nodes.push_back(std::move(n.n));
    }
    fail(peek().pos, "unexpected EOF");
  }

  item text_or_action() {
    const token& t = next_non_space();
    if (t.kind == token_kind::text) {
      item it;
      it.n.type = node::kind::text;
      it.n.pos = t.pos;
      it.n.text = std::string(t.text);
      return it;
    }
    if (t.kind == token_kind::left_delim) return action();
    unexpected(t, "input");
  }

  item action() {
    const token& t = next_non_space();
    item it;
    it.pos = t.pos;
    switch (t.kind) {
      case token_kind::keyword_block:
        it.n = block_control();
        return it;
      case token_kind::keyword_break:
      case token_kind::keyword_continue: {
        bool is_break = t.kind == token_kind::keyword_break;
        std::string what = is_break ? "{{break}}" : "{{continue}}";
        const token& close = next_non_space();
        if (close.kind != token_kind::right_delim) unexpected(close, what);
        if (range_depth_ == 0) fail(t.pos, what + " outside {{range}}");
        it.n.type = is_break ? node::kind::break_ : node::kind::continue_;
        it.n.pos = t.pos;
        return it;
      }
      case token_kind::keyword_else: {
        const token& p = peek_non_space();
        // "{{else if" and "{{else with" leave the keyword for the enclosing control to parse.
        if (p.kind != token_kind::keyword_if && p.kind != token_kind::keyword_with) {
          expect(token_kind::right_delim, "else");
        }
        it.else_ = true;
        return it;
      }
      case token_kind::keyword_end:
        expect(token_kind::right_delim, "end");
        it.end = true;
        return it;
      case token_kind::keyword_if:
        it.n = control(node::kind::if_, "if");
        return it;
      case token_kind::keyword_range:
        it.n = control(node::kind::range, "range");
        return it;
      case token_kind::keyword_with:
        it.n = control(node::kind::with, "with");
        return it;
      case token_kind::keyword_template:
        it.n = template_control();
        return it;
      default:
        break;
    }
    --i_;  // back to the token that starts the pipeline
    it.n.type = node::kind::action;
    it.n.pos = peek().pos;
    it.n.pipe = pipeline("command", token_kind::right_delim);
    return it;
  }

  struct depth_guard {
    explicit depth_guard(parser& p, std::size_t pos) : p_(p) {
      if (++p_.depth_ > max_nesting_depth) p_.fail(pos, "max expression depth exceeded");
    }
    ~depth_guard() { --p_.depth_; }
    parser& p_;
  };

  node control(node::kind kind, std::string_view context) {
    depth_guard guard(*this, peek().pos);
    std::size_t vars_mark = vars_.size();
    node n;
    n.type = kind;
    n.pos = peek_non_space().pos;
    n.pipe = pipeline(context, token_kind::right_delim);
    if (kind == node::kind::range) ++range_depth_;
    auto [list, next] = item_list();
    if (kind == node::kind::range) --range_depth_;
    n.list = list;
    if (next.else_) {
      if (kind == node::kind::if_ && peek().kind == token_kind::keyword_if) {
        next_non_space();
        n.else_list = std::make_shared<list_node>();
        n.else_list->nodes.push_back(control(node::kind::if_, "if"));
      } else if (kind == node::kind::with && peek().kind == token_kind::keyword_with) {
        next_non_space();
        n.else_list = std::make_shared<list_node>();
        n.else_list->nodes.push_back(control(node::kind::with, "with"));
      } else {
        auto [else_list, end] = item_list();
        if (!end.end) fail(end.pos, "expected end; found {{else}}");
        n.else_list = else_list;
      }
    }
    vars_.resize(vars_mark);
    return n;
  }

  node template_control() {
    const token& t = next_non_space();
    node n;
    n.type = node::kind::template_call;
    n.pos = t.pos;
    n.text = template_name(t, "template clause");
    if (next_non_space().kind != token_kind::right_delim) {
      --i_;
      n.pipe = pipeline("template clause", token_kind::right_delim);
    }
    return n;
  }

  node block_control() {
    const token& t = next_non_space();
    std::string name = template_name(t, "block clause");
    node n;
    n.type = node::kind::template_call;
    n.pos = t.pos;
    n.text = name;
    n.pipe = pipeline("block clause", token_kind::right_delim);
    auto saved_vars = std::move(vars_);
    int saved_range = range_depth_;
    vars_ = {"$"};
    range_depth_ = 0;
    auto [list, end] = item_list();
    if (!end.end) fail(end.pos, "unexpected {{else}} in block clause");
    vars_ = std::move(saved_vars);
    range_depth_ = saved_range;
    blocks_.push_back({name, list, t.pos});
    return n;
  }

  std::shared_ptr<pipeline_node> pipeline(std::string_view context, token_kind end) {
    auto pipe = std::make_shared<pipeline_node>();
    pipe->pos = peek_non_space().pos;
    // Declarations: "$x :=", "$x =", and in range "$i, $v :=".
    while (peek_non_space().kind == token_kind::variable) {
      std::size_t save = i_;
      const token& v = next();
      const token& after = peek_non_space();
      if (after.kind == token_kind::declare || after.kind == token_kind::assign) {
        next();
        pipe->is_assign = after.kind == token_kind::assign;
        if (pipe->is_assign && std::find(vars_.begin(), vars_.end(), v.text) == vars_.end()) {
          fail(v.pos, "undefined variable " + go_quote(v.text));
        }
        pipe->decl.emplace_back(v.text);
        if (!pipe->is_assign) vars_.emplace_back(v.text);
        break;
      }
      if (after.kind == token_kind::comma) {
        next();
        pipe->decl.emplace_back(v.text);
        vars_.emplace_back(v.text);
        if (context == "range" && pipe->decl.size() < 2) {
          auto k = peek_non_space().kind;
          if (k == token_kind::variable || k == token_kind::right_delim ||
              k == token_kind::right_paren) {
            continue;
          }
          fail(peek().pos, "range can only initialize variables");
        }
        fail(v.pos, "too many declarations in " + std::string(context));
      }
      i_ = save;
      break;
    }
    while (true) {
      const token& t = next_non_space();
      if (t.kind == end) {
        if (pipe->cmds.empty()) fail(t.pos, "missing value for " + std::string(context));
        for (std::size_t k = 1; k < pipe->cmds.size(); ++k) {
          const auto& first = pipe->cmds[k].args.front();
          if (first.type == operand_node::kind::constant || first.type == operand_node::kind::dot) {
            fail(first.pos, "non executable command in pipeline stage " + std::to_string(k + 1));
          }
        }
        return pipe;
      }
      switch (t.kind) {
        case token_kind::boolean:
        case token_kind::char_constant:
        case token_kind::dot:
        case token_kind::field:
        case token_kind::identifier:
        case token_kind::number:
        case token_kind::nil:
        case token_kind::raw_string:
        case token_kind::string:
        case token_kind::variable:
        case token_kind::left_paren:
          --i_;
          pipe->cmds.push_back(command());
          break;
        default:
          unexpected(t, context);
      }
    }
  }

  command_node command() {
    command_node cmd;
    cmd.pos = peek_non_space().pos;
    while (true) {
      peek_non_space();
      if (auto op = operand()) cmd.args.push_back(std::move(*op));
      const token& t = next();
      if (t.kind == token_kind::space) continue;
      if (t.kind == token_kind::right_delim || t.kind == token_kind::right_paren) {
        --i_;
      } else if (t.kind != token_kind::pipe) {
        unexpected(t, "operand");
      }
      break;
    }
    if (cmd.args.empty()) fail(cmd.pos, "empty command");
    return cmd;
  }

  std::optional<operand_node> operand() {
    auto n = term();
    if (!n) return n;
    if (peek().kind == token_kind::field) {
      if (n->type == operand_node::kind::constant || n->type == operand_node::kind::dot) {
        fail(peek().pos, "unexpected . after term " + go_quote(n->source));
      }
      while (peek().kind == token_kind::field) n->path.emplace_back(next().text.substr(1));
      n->source = std::string(text_.substr(n->pos, end_of_previous() - n->pos));
    }
    return n;
  }

  std::optional<operand_node> term() {
    const token& t = next_non_space();
    operand_node n;
    n.pos = t.pos;
    n.source = std::string(t.text);
    switch (t.kind) {
      case token_kind::identifier:
        if (!has_function_(t.text)) fail(t.pos, "function " + go_quote(t.text) + " not defined");
        n.type = operand_node::kind::identifier;
        n.name = std::string(t.text);
        return n;
      case token_kind::dot:
        n.type = operand_node::kind::dot;
        return n;
      case token_kind::nil:
        n.type = operand_node::kind::constant;
        n.is_nil = true;
        return n;
      case token_kind::variable: {
        std::string_view name = t.text;
        if (std::find(vars_.begin(), vars_.end(), name) == vars_.end()) {
          fail(t.pos, "undefined variable " + go_quote(name));
        }
        n.type = operand_node::kind::variable;
        n.name = std::string(name);
        return n;
      }
      case token_kind::field: {
        n.type = operand_node::kind::field;
        n.path.emplace_back(t.text.substr(1));
        return n;
      }
      case token_kind::boolean:
        n.type = operand_node::kind::constant;
        n.constant = value(t.text == "true");
        return n;
      case token_kind::number:
        n.type = operand_node::kind::constant;
        if (is_integer_overflow(t.text)) {
          fail(t.pos, "integer overflow: " + go_quote(t.text));
        }
        if (!parse_number_literal(t.text, n.constant)) {
          fail(t.pos, "illegal number syntax: " + go_quote(t.text));
        }
        return n;
      case token_kind::char_constant: {
        std::string s;
        std::uint32_t cp = 0;
        if (!unquote_literal(t.text, s) || s.empty() || decode_utf8(s, 0, cp) != s.size()) {
          fail(t.pos, "malformed character constant: " + std::string(t.text));
        }
        n.type = operand_node::kind::constant;
        n.constant = value(static_cast<std::int64_t>(cp));
        return n;
      }
      case token_kind::string:
      case token_kind::raw_string: {
        std::string s;
        if (!unquote_literal(t.text, s)) fail(t.pos, "invalid syntax");
        n.type = operand_node::kind::constant;
        n.constant = value(std::move(s));
        return n;
      }
      case token_kind::left_paren: {
        depth_guard guard(*this, t.pos);
        n.type = operand_node::kind::pipeline;
        n.pipe = pipeline("parenthesized pipeline", token_kind::right_paren);
        n.source = std::string(text_.substr(t.pos, end_of_previous() - t.pos));
        return n;
      }
      default:
        --i_;
        return std::nullopt;
    }
  }

  const std::string& name_;
  std::string_view text_;
  std::vector<token> toks_;
  const std::function<bool(std::string_view)>& has_function_;
  std::shared_ptr<const std::string> source_;
  std::size_t i_ = 0;
  std::vector<std::string> vars_{"$"};
  int range_depth_ = 0;
  int depth_ = 0;
  // {{block}} bodies, added to the output once the main tree is complete.
  struct pending_block {
    std::string name;
    std::shared_ptr<list_node> list;
    std::size_t pos;
  };
  std::vector<pending_block> blocks_;
};

}  // namespace

std::pair<int, int> line_and_column(std::string_view text, std::size_t pos) {
  pos = std::min(pos, text.size());
  std::string_view before = text.substr(0, pos);
  int line = 1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
  auto nl = before.rfind('\n');
  int col = static_cast<int>(nl == std::string_view::npos ? pos : pos - nl - 1);
  return {line, col};
}

std::string parse_error_prefix(std::string_view name, std::string_view text, std::size_t pos) {
  return "template: " + std::string(name) + ":" + std::to_string(line_and_column(text, pos).first) +
         ": ";
}

result<parse_output> parse_template(const std::string& name, std::string_view text,
                                    const std::function<bool(std::string_view)>& has_function) {
  parser p(name, text, lex_template(text), has_function);
  try {
    return p.run();
  } catch (const parse_failure& f) {
    return make_error("template_parse", parse_error_prefix(name, text, f.pos) + f.message);
  }
}

}  // namespace kp::gotemplate
