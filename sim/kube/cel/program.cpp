#include "sim/kube/cel/program.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/string.hpp>
#include <limits>
#include <optional>
#include <type_traits>

#include "sim/kube/cel/library.hpp"
#include "sim/kube/cel/parser.hpp"

namespace kp::sim::kube::cel {
namespace json = boost::json;

namespace {

using value_result = result<json::value>;

error eval_error(std::string message) {
  return make_error("cel_eval", std::move(message));
}

bool is_operator(const std::string& name) {
  return name == "_?_:_" || name == "_||_" || name == "_&&_" || name == "!_" || name == "-_" ||
         name == "_[_]" || name == "@in" ||
         (name.size() >= 3 && name.front() == '_' && name.back() == '_');
}

// ---- compile-time checks: every name declared, every function provided.
struct checker {
  std::vector<std::string> scope{"self", "oldSelf"};
  bool uses_old_self = false;

  result<void> check(const expression& e) {
    switch (e.kind) {
      case expression_kind::literal:
        return {};
      case expression_kind::identifier:
        for (const auto& s : scope)
          if (s == e.name) {
            if (e.name == "oldSelf") uses_old_self = true;
            return {};
          }
        return make_error("cel_compile", "undeclared reference to '" + e.name + "'");
      case expression_kind::select:
        return check(*e.operand);
      case expression_kind::list:
      case expression_kind::map:
        for (const auto& a : e.args)
          if (auto s = check(*a); !s) return s;
        return {};
      case expression_kind::comprehension: {
        if (auto s = check(*e.operand); !s) return s;
        scope.push_back(e.variable);
        for (const auto& a : e.args)
          if (auto s = check(*a); !s) {
            scope.pop_back();
            return s;
          }
        scope.pop_back();
        return {};
      }
      case expression_kind::call: {
        bool method = e.operand != nullptr;
        if (method) {
          if (auto s = check(*e.operand); !s) return s;
        }
        for (const auto& a : e.args)
          if (auto s = check(*a); !s) return s;
        if (!method && is_operator(e.name)) return {};
        if (!function_known(e.name, method, e.args.size()))
          return make_error("cel_compile",
                            "undeclared reference to '" + e.name + "' (in container '')");
        // A literal pattern must compile, as cel-go checks at compile time.
        bool regex_fn = e.name == "matches" || e.name == "find" || e.name == "findAll";
        const auto& pattern_arg = method ? e.args.front() : e.args.back();
        if (regex_fn && pattern_arg->kind == expression_kind::literal &&
            pattern_arg->value.is_string()) {
          if (auto s = compiled_regex(std::string(pattern_arg->value.get_string())); !s)
            return make_error("cel_compile", s.error().message);
        }
        return {};
      }
    }
    return {};
  }
};

// ---- evaluation
bool is_number(const json::value& v) {
  return v.is_int64() || v.is_uint64() || v.is_double();
}

// -1, 0, 1 over numbers of any CEL numeric type.
int compare_numbers(const json::value& a, const json::value& b) {
  if (a.is_double() || b.is_double()) {
    double x = a.is_double()  ? a.get_double()
               : a.is_int64() ? static_cast<double>(a.get_int64())
                              : static_cast<double>(a.get_uint64());
    double y = b.is_double()  ? b.get_double()
               : b.is_int64() ? static_cast<double>(b.get_int64())
                              : static_cast<double>(b.get_uint64());
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.is_int64() && b.is_int64()) {
    auto x = a.get_int64(), y = b.get_int64();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.is_uint64() && b.is_uint64()) {
    auto x = a.get_uint64(), y = b.get_uint64();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  // int against uint
  if (a.is_int64()) {
    if (a.get_int64() < 0) return -1;
    auto x = static_cast<std::uint64_t>(a.get_int64());
    return x < b.get_uint64() ? -1 : x > b.get_uint64() ? 1 : 0;
  }
  return -compare_numbers(b, a);
}

bool equal(const json::value& a, const json::value& b) {
  if (is_number(a) && is_number(b)) return compare_numbers(a, b) == 0;
  if (a.kind() != b.kind()) return false;
  if (a.is_array()) {
    const auto& x = a.get_array();
    const auto& y = b.get_array();
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!equal(x[i], y[i])) return false;
    return true;
  }
  if (a.is_object()) {
    const auto& x = a.get_object();
    const auto& y = b.get_object();
    if (x.size() != y.size()) return false;
    for (const auto& kv : x) {
      const auto* other = y.if_contains(kv.key());
      if (!other || !equal(kv.value(), *other)) return false;
    }
    return true;
  }
  return a == b;
}

// + - * / % on CEL's int (int64) or uint (uint64), with CEL's overflow and zero errors.
template <class T>
value_result integer_op(const std::string& fn, T x, T y) {
  const char* overflow_error =
      std::is_signed_v<T> ? "integer overflow" : "unsigned integer overflow";
  T r = 0;
  bool overflow = false;
  if (fn == "+") overflow = __builtin_add_overflow(x, y, &r);
  if (fn == "-") overflow = __builtin_sub_overflow(x, y, &r);
  if (fn == "*") overflow = __builtin_mul_overflow(x, y, &r);
  if (fn == "/" || fn == "%") {
    if (y == 0) return eval_error(fn == "/" ? "division by zero" : "modulus by zero");
    if constexpr (std::is_signed_v<T>) {
      if (x == std::numeric_limits<T>::min() && y == -1) return eval_error(overflow_error);
    }
    r = fn == "/" ? x / y : x % y;
  }
  if (overflow) return eval_error(overflow_error);
  return json::value(r);
}

value_result arithmetic(const std::string& op, const json::value& a, const json::value& b) {
  if (op == "_+_" && a.is_string() && b.is_string()) {
    json::string s = a.get_string();
    s.append(b.get_string());
    return json::value(std::move(s));
  }
  if (op == "_+_" && a.is_array() && b.is_array()) {
    json::array out = a.get_array();
    for (const auto& v : b.get_array()) out.push_back(v);
    return json::value(std::move(out));
  }
  std::string fn = op.substr(1, op.size() - 2);
  if (a.is_int64() && b.is_int64()) return integer_op(fn, a.get_int64(), b.get_int64());
  if (a.is_uint64() && b.is_uint64()) return integer_op(fn, a.get_uint64(), b.get_uint64());
  if (a.is_double() && b.is_double()) {
    double x = a.get_double(), y = b.get_double();
    if (fn == "+") return json::value(x + y);
    if (fn == "-") return json::value(x - y);
    if (fn == "*") return json::value(x * y);
    if (fn == "/") return json::value(x / y);
  }
  return no_overload(op, {a, b});
}

class evaluator {
 public:
  evaluator(const json::value& self, const json::value* old_self) {
    vars_.emplace_back("self", &self);
    if (old_self) vars_.emplace_back("oldSelf", old_self);
  }

  value_result eval(const expression& e) {
    switch (e.kind) {
      case expression_kind::literal:
        return e.value;
      case expression_kind::identifier:
        for (auto it = vars_.rbegin(); it != vars_.rend(); ++it)
          if (it->first == e.name) return *it->second;
        return eval_error("undeclared reference to '" + e.name + "'");
      case expression_kind::select:
        return select(e);
      case expression_kind::list: {
        json::array out;
        for (const auto& a : e.args) {
          auto v = eval(*a);
          if (!v) return v;
          out.push_back(std::move(v.value()));
        }
        return json::value(std::move(out));
      }
      case expression_kind::map: {
        json::object out;
        for (std::size_t i = 0; i + 1 < e.args.size(); i += 2) {
          auto k = eval(*e.args[i]);
          if (!k) return k;
          if (!k.value().is_string())
            return eval_error("unsupported map key type: " + type_name(k.value()));
          auto v = eval(*e.args[i + 1]);
          if (!v) return v;
          if (out.contains(k.value().get_string()))
            return eval_error("Failed with repeated key: " + std::string(k.value().get_string()));
          out[k.value().get_string()] = std::move(v.value());
        }
        return json::value(std::move(out));
      }
      case expression_kind::comprehension:
        return comprehension(e);
      case expression_kind::call:
        return call(e);
    }
    return eval_error("unknown expression");
  }

 private:
  value_result select(const expression& e) {
    auto operand = eval(*e.operand);
    if (!operand) return operand;
    const auto& v = operand.value();
    if (!v.is_object())
      return e.presence_test ? value_result(eval_error("invalid type for field selection."))
                             : value_result(no_overload("_._", {v}));
    const auto* field = v.get_object().if_contains(e.name);
    if (e.presence_test) return json::value(field != nullptr);
    if (!field) return eval_error("no such key: " + e.name);
    return *field;
  }

  value_result comprehension(const expression& e) {
    auto range = eval(*e.operand);
    if (!range) return range;
    std::vector<json::value> items;
    if (range.value().is_array()) {
      for (const auto& v : range.value().get_array()) items.push_back(v);
    } else if (range.value().is_object()) {
      for (const auto& kv : range.value().get_object()) items.emplace_back(json::string(kv.key()));
    } else {
      return no_overload(e.name, {range.value()});
    }
    std::optional<error> pending;  // errors are absorbed by a deciding element, as in CEL
    std::int64_t count = 0;
    json::array out;
    for (const auto& item : items) {
      vars_.emplace_back(e.variable, &item);
      auto r = eval(*e.args[0]);
      value_result mapped = json::value(nullptr);
      bool keep = true;
      if (r && e.name == "map_filter") {
        if (!r.value().is_bool()) {
          vars_.pop_back();
          return no_overload("filter", {r.value()});
        }
        keep = r.value().get_bool();
        if (keep) mapped = eval(*e.args[1]);
      }
      vars_.pop_back();
      if (e.name == "map") {
        if (!r) return r;
        out.push_back(std::move(r.value()));
        continue;
      }
      if (e.name == "map_filter") {
        if (!r) return r;
        if (!mapped) return mapped;
        if (keep) out.push_back(std::move(mapped.value()));
        continue;
      }
      if (!r) {
        if (e.name == "exists_one" || e.name == "filter") return r;
        if (!pending) pending = r.error();
        continue;
      }
      if (!r.value().is_bool()) return no_overload(e.name, {r.value()});
      bool b = r.value().get_bool();
      if (e.name == "all" && !b) return json::value(false);
      if (e.name == "exists" && b) return json::value(true);
      if (e.name == "exists_one" && b) ++count;
      if (e.name == "filter" && b) out.push_back(item);
    }
    if (e.name == "map" || e.name == "map_filter" || e.name == "filter")
      return json::value(std::move(out));
    if (e.name == "exists_one") return json::value(count == 1);
    if (pending) return *pending;
    return json::value(e.name == "all");
  }

  value_result logical(const expression& e, bool is_and) {
    auto left = eval(*e.args[0]);
    if (left && left.value().is_bool() && left.value().get_bool() != is_and)
      return left;  // short circuit: false && _, true || _
    auto right = eval(*e.args[1]);
    if (right && right.value().is_bool() && right.value().get_bool() != is_and) return right;
    if (!left) return left;
    if (!left.value().is_bool()) return no_overload(e.name, {left.value()});
    if (!right) return right;
    if (!right.value().is_bool()) return no_overload(e.name, {right.value()});
    return json::value(is_and);
  }

  value_result call(const expression& e) {
    const auto& n = e.name;
    if (!e.operand) {
      if (n == "_&&_") return logical(e, true);
      if (n == "_||_") return logical(e, false);
      if (n == "_?_:_") {
        auto c = eval(*e.args[0]);
        if (!c) return c;
        if (!c.value().is_bool()) return no_overload(n, {c.value()});
        return eval(*e.args[c.value().get_bool() ? 1 : 2]);
      }
    }
    std::vector<json::value> args;
    if (e.operand) {
      auto target = eval(*e.operand);
      if (!target) return target;
      args.push_back(std::move(target.value()));
    }
    for (const auto& a : e.args) {
      auto v = eval(*a);
      if (!v) return v;
      args.push_back(std::move(v.value()));
    }
    if (e.operand) return call_function(n, true, args);
    if (n == "!_") {
      if (!args[0].is_bool()) return no_overload(n, args);
      return json::value(!args[0].get_bool());
    }
    if (n == "-_") {
      if (args[0].is_int64()) {
        if (args[0].get_int64() == std::numeric_limits<std::int64_t>::min())
          return eval_error("integer overflow");
        return json::value(-args[0].get_int64());
      }
      if (args[0].is_double()) return json::value(-args[0].get_double());
      return no_overload(n, args);
    }
    if (n == "_==_") return json::value(equal(args[0], args[1]));
    if (n == "_!=_") return json::value(!equal(args[0], args[1]));
    if (n == "_<_" || n == "_<=_" || n == "_>_" || n == "_>=_") {
      int c = 0;
      if (is_number(args[0]) && is_number(args[1])) {
        c = compare_numbers(args[0], args[1]);
      } else if (args[0].is_string() && args[1].is_string()) {
        auto x = args[0].get_string().subview(), y = args[1].get_string().subview();
        c = x < y ? -1 : x > y ? 1 : 0;
      } else if (args[0].is_bool() && args[1].is_bool()) {
        c = static_cast<int>(args[0].get_bool()) - static_cast<int>(args[1].get_bool());
      } else {
        return no_overload(n, args);
      }
      bool r = n == "_<_" ? c < 0 : n == "_<=_" ? c <= 0 : n == "_>_" ? c > 0 : c >= 0;
      return json::value(r);
    }
    if (n == "@in") {
      if (args[1].is_array()) {
        for (const auto& v : args[1].get_array())
          if (equal(v, args[0])) return json::value(true);
        return json::value(false);
      }
      if (args[1].is_object()) {
        if (!args[0].is_string()) return json::value(false);
        return json::value(args[1].get_object().contains(args[0].get_string()));
      }
      return no_overload(n, args);
    }
    if (n == "_[_]") return index(args[0], args[1]);
    if (n == "_+_" || n == "_-_" || n == "_*_" || n == "_/_" || n == "_%_")
      return arithmetic(n, args[0], args[1]);
    return call_function(n, false, args);
  }

  value_result index(const json::value& container, const json::value& key) {
    if (container.is_array()) {
      const auto& a = container.get_array();
      std::int64_t i = 0;
      if (key.is_int64()) {
        i = key.get_int64();
      } else if (key.is_uint64() && key.get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
        i = static_cast<std::int64_t>(key.get_uint64());
      } else {
        return no_overload("_[_]", {container, key});
      }
      if (i < 0 || static_cast<std::size_t>(i) >= a.size())
        return eval_error("index out of bounds: " + std::to_string(i));
      return a[static_cast<std::size_t>(i)];
    }
    if (container.is_object()) {
      if (!key.is_string()) return no_overload("_[_]", {container, key});
      const auto* v = container.get_object().if_contains(key.get_string());
      if (!v) return eval_error("no such key: " + std::string(key.get_string()));
      return *v;
    }
    return no_overload("_[_]", {container, key});
  }

  std::vector<std::pair<std::string, const json::value*>> vars_;
};

}  // namespace

result<program> compile(std::string_view source) {
  auto root = parse(source);
  if (!root) return root.error();
  checker c;
  if (auto s = c.check(*root.value()); !s) return s.error();
  program p;
  p.source = std::string(source);
  p.root = root.value();
  p.uses_old_self = c.uses_old_self;
  return p;
}

result<json::value> evaluate(const program& p, const json::value& self,
                             const json::value* old_self) {
  evaluator e(self, old_self);
  return e.eval(*p.root);
}

}  // namespace kp::sim::kube::cel
