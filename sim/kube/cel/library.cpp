#include "sim/kube/cel/library.hpp"

#include <re2/re2.h>

#include <boost/json/array.hpp>
#include <boost/json/string.hpp>
#include <charconv>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>

namespace kp::sim::kube::cel {
namespace json = boost::json;

namespace {

struct signature {
  const char* name;
  bool method;
  std::size_t min_arity;
  std::size_t max_arity;
};

constexpr signature signatures[] = {
    {"size", false, 1, 1},       {"size", true, 0, 0},       {"int", false, 1, 1},
    {"uint", false, 1, 1},       {"double", false, 1, 1},    {"string", false, 1, 1},
    {"bool", false, 1, 1},       {"dyn", false, 1, 1},       {"matches", false, 2, 2},
    {"matches", true, 1, 1},     {"contains", true, 1, 1},   {"startsWith", true, 1, 1},
    {"endsWith", true, 1, 1},    {"find", true, 1, 1},       {"findAll", true, 1, 2},
    {"lowerAscii", true, 0, 0},  {"upperAscii", true, 0, 0}, {"trim", true, 0, 0},
    {"split", true, 1, 2},       {"join", true, 0, 1},       {"indexOf", true, 1, 1},
    {"lastIndexOf", true, 1, 1}, {"replace", true, 2, 3},
};

bool is_int(const json::value& v) {
  return v.is_int64();
}
bool is_string(const json::value& v) {
  return v.is_string();
}
std::string_view str(const json::value& v) {
  const auto& s = v.get_string();
  return {s.data(), s.size()};
}

// Code points in UTF-8 text (CEL's size() and indexes count characters, not bytes).
std::int64_t code_points(std::string_view s) {
  std::int64_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

std::int64_t code_point_index(std::string_view s, std::size_t byte_offset) {
  return code_points(s.substr(0, byte_offset));
}

}  // namespace

// Compiled patterns are reused: rules run on every write. RE2 objects are thread-safe to share.
result<std::shared_ptr<const re2::RE2>> compiled_regex(const std::string& pattern) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const re2::RE2>> cache;
  std::lock_guard lock(mutex);
  if (auto it = cache.find(pattern); it != cache.end()) return it->second;
  re2::RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_shared<const re2::RE2>(pattern, options);
  if (!re->ok())
    return make_error("cel_regex", "invalid regular expression '" + pattern + "': " + re->error());
  if (cache.size() > 4096) cache.clear();
  cache.emplace(pattern, re);
  return re;
}

namespace {

result<json::value> to_int(const json::value& v) {
  if (v.is_int64()) return v;
  if (v.is_uint64()) {
    if (v.get_uint64() > static_cast<std::uint64_t>(INT64_MAX))
      return make_error("cel_eval", "integer overflow");
    return json::value(static_cast<std::int64_t>(v.get_uint64()));
  }
  if (v.is_double()) {
    double d = v.get_double();
    if (!std::isfinite(d) || d <= -9.2233720368547758e18 || d >= 9.2233720368547758e18)
      return make_error("cel_eval", "double is out of range for int");
    return json::value(static_cast<std::int64_t>(d));
  }
  if (v.is_string()) {
    auto s = str(v);
    std::int64_t out = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (s.empty() || ec != std::errc{} || end != s.data() + s.size())
      return make_error("cel_eval", "String to int conversion error: \"" + std::string(s) + "\"");
    return json::value(out);
  }
  return no_overload("int", {v});
}

result<json::value> to_uint(const json::value& v) {
  if (v.is_uint64()) return v;
  if (v.is_int64()) {
    if (v.get_int64() < 0) return make_error("cel_eval", "unsigned integer overflow");
    return json::value(static_cast<std::uint64_t>(v.get_int64()));
  }
  if (v.is_double()) {
    double d = v.get_double();
    if (!std::isfinite(d) || d < 0 || d >= 1.8446744073709552e19)
      return make_error("cel_eval", "double is out of range for uint");
    return json::value(static_cast<std::uint64_t>(d));
  }
  if (v.is_string()) {
    auto s = str(v);
    std::uint64_t out = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (s.empty() || ec != std::errc{} || end != s.data() + s.size())
      return make_error("cel_eval", "String to uint conversion error: \"" + std::string(s) + "\"");
    return json::value(out);
  }
  return no_overload("uint", {v});
}

result<json::value> to_double(const json::value& v) {
  if (v.is_double()) return v;
  if (v.is_int64()) return json::value(static_cast<double>(v.get_int64()));
  if (v.is_uint64()) return json::value(static_cast<double>(v.get_uint64()));
  if (v.is_string()) {
    auto s = str(v);
    double out = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (s.empty() || ec != std::errc{} || end != s.data() + s.size())
      return make_error("cel_eval",
                        "String to double conversion error: \"" + std::string(s) + "\"");
    return json::value(out);
  }
  return no_overload("double", {v});
}

std::string format_double(double d) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  if (ec != std::errc{}) return "NaN";
  return std::string(buf, end);
}

result<json::value> to_string(const json::value& v) {
  if (v.is_string()) return v;
  if (v.is_int64()) return json::value(json::string(std::to_string(v.get_int64())));
  if (v.is_uint64()) return json::value(json::string(std::to_string(v.get_uint64())));
  if (v.is_double()) return json::value(json::string(format_double(v.get_double())));
  if (v.is_bool()) return json::value(json::string(v.get_bool() ? "true" : "false"));
  return no_overload("string", {v});
}

result<json::value> to_bool(const json::value& v) {
  if (v.is_bool()) return v;
  if (v.is_string()) {
    auto s = str(v);
    if (s == "1" || s == "t" || s == "true" || s == "TRUE" || s == "True") return json::value(true);
    if (s == "0" || s == "f" || s == "false" || s == "FALSE" || s == "False")
      return json::value(false);
    return make_error("cel_eval", "type conversion error from 'string' to 'bool'");
  }
  return no_overload("bool", {v});
}

result<json::value> size_of(const json::value& v) {
  if (v.is_string()) return json::value(code_points(str(v)));
  if (v.is_array()) return json::value(static_cast<std::int64_t>(v.get_array().size()));
  if (v.is_object()) return json::value(static_cast<std::int64_t>(v.get_object().size()));
  return no_overload("size", {v});
}

std::string ascii_case(std::string_view s, bool upper) {
  std::string out(s);
  for (auto& c : out) {
    if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (!upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

result<json::value> string_method(std::string_view name, const std::vector<json::value>& a) {
  auto s = str(a[0]);
  auto arg = [&](std::size_t i) { return str(a[i]); };
  for (std::size_t i = 1; i < a.size(); ++i)
    if (!is_string(a[i]) && !(name == "findAll" && i == 2 && is_int(a[i])) &&
        !(name == "split" && i == 2 && is_int(a[i])) &&
        !(name == "replace" && i == 3 && is_int(a[i])))
      return no_overload(name, a);
  if (name == "contains") return json::value(s.find(arg(1)) != std::string_view::npos);
  if (name == "startsWith") return json::value(s.substr(0, arg(1).size()) == arg(1));
  if (name == "endsWith")
    return json::value(s.size() >= arg(1).size() && s.substr(s.size() - arg(1).size()) == arg(1));
  if (name == "lowerAscii") return json::value(json::string(ascii_case(s, false)));
  if (name == "upperAscii") return json::value(json::string(ascii_case(s, true)));
  if (name == "trim") {
    std::size_t b = 0, e = s.size();
    while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\n' || s[b] == '\r')) ++b;
    while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\n' || s[e - 1] == '\r'))
      --e;
    return json::value(json::string(s.substr(b, e - b)));
  }
  if (name == "indexOf" || name == "lastIndexOf") {
    auto pos = name == "indexOf" ? s.find(arg(1)) : s.rfind(arg(1));
    return json::value(pos == std::string_view::npos ? std::int64_t{-1} : code_point_index(s, pos));
  }
  if (name == "split") {
    std::int64_t limit = a.size() == 3 ? a[2].get_int64() : -1;
    json::array out;
    if (limit == 0) return json::value(out);
    auto sep = arg(1);
    std::size_t start = 0;
    while (true) {
      if (limit > 0 && static_cast<std::int64_t>(out.size()) == limit - 1) break;
      auto pos = sep.empty() ? (start + 1 < s.size() ? start + 1 : std::string_view::npos)
                             : s.find(sep, start);
      if (pos == std::string_view::npos || (sep.empty() && start >= s.size())) break;
      out.push_back(json::string(s.substr(start, pos - start)));
      start = pos + sep.size();
    }
    out.push_back(json::string(s.substr(std::min(start, s.size()))));
    return json::value(out);
  }
  if (name == "replace") {
    std::int64_t limit = a.size() == 4 ? a[3].get_int64() : -1;
    auto from = arg(1), to = arg(2);
    std::string out;
    std::size_t start = 0;
    std::int64_t done = 0;
    while (limit < 0 || done < limit) {
      auto pos = from.empty() ? std::string_view::npos : s.find(from, start);
      if (pos == std::string_view::npos) break;
      out.append(s.substr(start, pos - start));
      out.append(to);
      start = pos + from.size();
      ++done;
    }
    out.append(s.substr(start));
    return json::value(json::string(out));
  }
  if (name == "matches" || name == "find" || name == "findAll") {
    auto re = compiled_regex(std::string(arg(1)));
    if (!re) return re.error();
    const auto& r = *re.value();
    if (name == "matches") return json::value(re2::RE2::PartialMatch(s, r));
    re2::StringPiece input(s.data(), s.size());
    re2::StringPiece match;
    if (name == "find") {
      if (!r.Match(input, 0, input.size(), re2::RE2::UNANCHORED, &match, 1))
        return json::value(json::string());
      return json::value(json::string(std::string_view(match.data(), match.size())));
    }
    std::int64_t limit = a.size() == 3 ? a[2].get_int64() : -1;
    json::array out;
    std::size_t pos = 0;
    while (pos <= input.size() && (limit < 0 || static_cast<std::int64_t>(out.size()) < limit)) {
      if (!r.Match(input, pos, input.size(), re2::RE2::UNANCHORED, &match, 1)) break;
      out.push_back(json::string(std::string_view(match.data(), match.size())));
      auto end = static_cast<std::size_t>(match.data() - input.data()) + match.size();
      pos = match.empty() ? end + 1 : end;
    }
    return json::value(out);
  }
  return no_overload(name, a);
}

}  // namespace

std::string type_name(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null:
      return "null_type";
    case json::kind::bool_:
      return "bool";
    case json::kind::int64:
      return "int";
    case json::kind::uint64:
      return "uint";
    case json::kind::double_:
      return "double";
    case json::kind::string:
      return "string";
    case json::kind::array:
      return "list";
    case json::kind::object:
      return "map";
  }
  return "dyn";
}

error no_overload(std::string_view function, const std::vector<json::value>& args) {
  std::string types;
  for (const auto& a : args) types += (types.empty() ? "" : ", ") + type_name(a);
  return make_error("cel_no_overload",
                    "no such overload: " + std::string(function) + "(" + types + ")");
}

bool function_known(std::string_view name, bool method, std::size_t arity) {
  for (const auto& s : signatures)
    if (name == s.name && method == s.method && arity >= s.min_arity && arity <= s.max_arity)
      return true;
  return false;
}

result<json::value> call_function(std::string_view name, bool method,
                                  const std::vector<json::value>& args) {
  if (name == "size") return size_of(args[0]);
  if (name == "int") return to_int(args[0]);
  if (name == "uint") return to_uint(args[0]);
  if (name == "double") return to_double(args[0]);
  if (name == "string") return to_string(args[0]);
  if (name == "bool") return to_bool(args[0]);
  if (name == "dyn") return args[0];
  if (name == "join") {
    if (!args[0].is_array() || (args.size() == 2 && !is_string(args[1])))
      return no_overload(name, args);
    std::string out;
    std::string_view sep = args.size() == 2 ? str(args[1]) : std::string_view();
    bool first = true;
    for (const auto& item : args[0].get_array()) {
      if (!is_string(item)) return no_overload(name, args);
      if (!first) out += sep;
      out += str(item);
      first = false;
    }
    return json::value(json::string(out));
  }
  if (!method && name == "matches") {
    if (!is_string(args[0]) || !is_string(args[1])) return no_overload(name, args);
    return string_method(name, args);
  }
  if (args.empty() || !is_string(args[0])) return no_overload(name, args);
  return string_method(name, args);
}

}  // namespace kp::sim::kube::cel
