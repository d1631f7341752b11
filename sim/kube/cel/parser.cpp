#include "sim/kube/cel/parser.hpp"

#include <boost/json/array.hpp>
#include <boost/json/string.hpp>

#include "sim/kube/cel/lexer.hpp"

namespace kp::sim::kube::cel {

namespace {

// Deeply nested input must not exhaust the stack.
constexpr int max_depth = 250;

expression_ptr make_call(std::string name, std::vector<expression_ptr> args, std::size_t pos,
                         expression_ptr target = nullptr) {
  auto e = std::make_shared<expression>();
  e->kind = expression_kind::call;
  e->name = std::move(name);
  e->args = std::move(args);
  e->operand = std::move(target);
  e->position = pos;
  return e;
}

bool is_reserved(const std::string& s) {
  static const char* words[] = {"as",        "break",  "const",  "continue", "else",  "for",
                                "function",  "if",     "import", "let",      "loop",  "package",
                                "namespace", "return", "var",    "void",     "while", "in"};
  for (const char* w : words)
    if (s == w) return true;
  return false;
}

class parser {
 public:
  explicit parser(std::vector<token> tokens) : t_(std::move(tokens)) {}

  result<expression_ptr> run() {
    auto e = expr();
    if (!e) return e.error();
    if (peek().kind != token_kind::end) return fail("unexpected '" + describe(peek()) + "'");
    return e;
  }

 private:
  const token& peek() const { return t_[i_]; }
  bool is_punct(const char* p) const {
    return peek().kind == token_kind::punct && peek().text == p;
  }
  bool accept(const char* p) {
    if (!is_punct(p)) return false;
    ++i_;
    return true;
  }
  static std::string describe(const token& t) {
    if (t.kind == token_kind::end) return "end of expression";
    if (t.kind == token_kind::string) return "string literal";
    if (t.kind == token_kind::integer || t.kind == token_kind::floating ||
        t.kind == token_kind::unsigned_integer)
      return "number";
    return t.text;
  }
  error fail(const std::string& why) const {
    return make_error("cel_syntax",
                      "Syntax error at position " + std::to_string(peek().position) + ": " + why);
  }
  result<void> expect(const char* p) {
    if (accept(p)) return {};
    return fail("expected '" + std::string(p) + "', found '" + describe(peek()) + "'");
  }

  struct depth_guard {
    int& d;
    explicit depth_guard(int& depth) : d(depth) { ++d; }
    ~depth_guard() { --d; }
  };

  result<expression_ptr> expr() {
    depth_guard g(depth_);
    if (depth_ > max_depth) return fail("expression nests too deeply");
    auto pos = peek().position;
    auto cond = binary_level(0);
    if (!cond) return cond;
    if (!accept("?")) return cond;
    auto yes = binary_level(0);
    if (!yes) return yes;
    if (auto s = expect(":"); !s) return s.error();
    auto no = expr();
    if (!no) return no;
    return make_call("_?_:_", {cond.value(), yes.value(), no.value()}, pos);
  }

  // Binary levels, loosest first: ||, &&, relations, additive, multiplicative.
  result<expression_ptr> binary_level(int level) {
    if (level == 5) return unary();
    auto left = binary_level(level + 1);
    if (!left) return left;
    while (true) {
      const token& op = peek();
      std::string name;
      if (op.kind == token_kind::punct) {
        const auto& p = op.text;
        if (level == 0 && p == "||") name = "_||_";
        if (level == 1 && p == "&&") name = "_&&_";
        if (level == 2 &&
            (p == "==" || p == "!=" || p == "<" || p == "<=" || p == ">" || p == ">="))
          name = "_" + p + "_";
        if (level == 3 && (p == "+" || p == "-")) name = "_" + p + "_";
        if (level == 4 && (p == "*" || p == "/" || p == "%")) name = "_" + p + "_";
      } else if (level == 2 && op.kind == token_kind::identifier && op.text == "in") {
        name = "@in";
      }
      if (name.empty()) return left;
      auto pos = op.position;
      ++i_;
      auto right = binary_level(level + 1);
      if (!right) return right;
      left = make_call(name, {left.value(), right.value()}, pos);
    }
  }

  result<expression_ptr> unary() {
    depth_guard g(depth_);
    if (depth_ > max_depth) return fail("expression nests too deeply");
    auto pos = peek().position;
    if (accept("!")) {
      auto operand = unary();
      if (!operand) return operand;
      return make_call("!_", {operand.value()}, pos);
    }
    if (is_punct("-")) {
      ++i_;
      // A negative literal is one value (so -9223372036854775808 fits).
      if (peek().kind == token_kind::integer) {
        auto lit = std::make_shared<expression>();
        lit->position = pos;
        lit->value = peek().unsigned_integer > static_cast<std::uint64_t>(INT64_MAX)
                         ? INT64_MIN
                         : -static_cast<std::int64_t>(peek().unsigned_integer);
        ++i_;
        return member(lit);
      }
      auto operand = unary();
      if (!operand) return operand;
      return make_call("-_", {operand.value()}, pos);
    }
    auto p = primary();
    if (!p) return p;
    return member(p.value());
  }

  result<expression_ptr> member(expression_ptr operand) {
    while (true) {
      auto pos = peek().position;
      if (accept(".")) {
        if (peek().kind != token_kind::identifier)
          return fail("expected a field or method name after '.'");
        std::string name = peek().text;
        ++i_;
        if (accept("(")) {
          auto args = arguments(")");
          if (!args) return args.error();
          auto m = expand_macro(name, operand, std::move(args.value()), pos);
          if (!m) return m;
          operand = m.value();
        } else {
          auto e = std::make_shared<expression>();
          e->kind = expression_kind::select;
          e->operand = operand;
          e->name = name;
          e->position = pos;
          operand = e;
        }
      } else if (accept("[")) {
        auto index = expr();
        if (!index) return index;
        if (auto s = expect("]"); !s) return s.error();
        operand = make_call("_[_]", {operand, index.value()}, pos);
      } else {
        return operand;
      }
    }
  }

  result<std::vector<expression_ptr>> arguments(const char* close) {
    std::vector<expression_ptr> out;
    if (accept(close)) return out;
    while (true) {
      auto e = expr();
      if (!e) return e.error();
      out.push_back(e.value());
      if (accept(close)) return out;
      if (auto s = expect(","); !s) return s.error();
      if (accept(close)) return out;  // trailing comma
    }
  }

  result<expression_ptr> expand_macro(const std::string& name, expression_ptr target,
                                      std::vector<expression_ptr> args, std::size_t pos) {
    bool two = args.size() == 2;
    bool three = args.size() == 3;
    if ((name == "all" || name == "exists" || name == "exists_one" || name == "filter" ||
         (name == "map" && !three)) &&
        two) {
      if (args[0]->kind != expression_kind::identifier)
        return fail("argument of " + name + "() must be a simple name");
      auto e = std::make_shared<expression>();
      e->kind = expression_kind::comprehension;
      e->name = name;
      e->operand = target;
      e->variable = args[0]->name;
      e->args = {args[1]};
      e->position = pos;
      return expression_ptr(e);
    }
    if (name == "map" && three) {
      if (args[0]->kind != expression_kind::identifier)
        return fail("argument of map() must be a simple name");
      auto e = std::make_shared<expression>();
      e->kind = expression_kind::comprehension;
      e->name = "map_filter";
      e->operand = target;
      e->variable = args[0]->name;
      e->args = {args[1], args[2]};
      e->position = pos;
      return expression_ptr(e);
    }
    return make_call(name, std::move(args), pos, target);
  }

  result<expression_ptr> primary() {
    const token tok = peek();
    auto e = std::make_shared<expression>();
    e->position = tok.position;
    switch (tok.kind) {
      case token_kind::integer:
        ++i_;
        if (tok.unsigned_integer > static_cast<std::uint64_t>(INT64_MAX))
          return fail("integer literal out of range");
        e->value = tok.integer;
        return expression_ptr(e);
      case token_kind::unsigned_integer:
        ++i_;
        e->value = tok.unsigned_integer;
        return expression_ptr(e);
      case token_kind::floating:
        ++i_;
        e->value = tok.floating;
        return expression_ptr(e);
      case token_kind::string:
        ++i_;
        e->value = boost::json::string(tok.text);
        return expression_ptr(e);
      case token_kind::bytes:
        ++i_;
        // Bytes compare and measure like strings for the rules evaluated here.
        e->value = boost::json::string(tok.text);
        return expression_ptr(e);
      case token_kind::end:
        return fail("unexpected end of expression");
      case token_kind::identifier: {
        ++i_;
        if (tok.text == "true" || tok.text == "false") {
          e->value = tok.text == "true";
          return expression_ptr(e);
        }
        if (tok.text == "null") {
          e->value = nullptr;
          return expression_ptr(e);
        }
        if (is_reserved(tok.text)) return fail("reserved identifier '" + tok.text + "'");
        if (accept("(")) {
          auto args = arguments(")");
          if (!args) return args.error();
          if (tok.text == "has") {
            if (args.value().size() != 1 || args.value()[0]->kind != expression_kind::select)
              return fail("invalid argument to has() macro");
            auto sel = std::make_shared<expression>(*args.value()[0]);
            sel->presence_test = true;
            return expression_ptr(sel);
          }
          return make_call(tok.text, std::move(args.value()), tok.position);
        }
        e->kind = expression_kind::identifier;
        e->name = tok.text;
        return expression_ptr(e);
      }
      case token_kind::punct:
        break;
    }
    if (accept("(")) {
      auto inner = expr();
      if (!inner) return inner;
      if (auto s = expect(")"); !s) return s.error();
      return inner;
    }
    if (accept("[")) {
      auto items = arguments("]");
      if (!items) return items.error();
      e->kind = expression_kind::list;
      e->args = std::move(items.value());
      return expression_ptr(e);
    }
    if (accept("{")) {
      e->kind = expression_kind::map;
      if (accept("}")) return expression_ptr(e);
      while (true) {
        auto key = expr();
        if (!key) return key;
        if (auto s = expect(":"); !s) return s.error();
        auto value = expr();
        if (!value) return value;
        e->args.push_back(key.value());
        e->args.push_back(value.value());
        if (accept("}")) break;
        if (auto s = expect(","); !s) return s.error();
        if (accept("}")) break;
      }
      return expression_ptr(e);
    }
    return fail("unexpected '" + describe(tok) + "'");
  }

  std::vector<token> t_;
  std::size_t i_ = 0;
  int depth_ = 0;
};

}  // namespace

result<expression_ptr> parse(std::string_view source) {
  auto tokens = tokenize(source);
  if (!tokens) return tokens.error();
  return parser(std::move(tokens.value())).run();
}

}  // namespace kp::sim::kube::cel
