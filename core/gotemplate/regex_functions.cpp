// Regular expressions through std::regex (ECMAScript grammar). Go uses RE2; go_to_ecmascript
// translates the RE2 spellings templates commonly use, and README.md lists what differs.
#include <cctype>
#include <regex>
#include <string>

#include "core/gotemplate/provider_function_groups.hpp"

namespace kp::gotemplate {

namespace {

using args_t = std::span<const value>;

// Translates RE2 syntax: leading flags (?i) (?m) (?s), named groups (?P<n>...) and (?<n>...),
// \A, \z, and \Q...\E.
result<std::regex> compile(const std::string& re) {
  auto flags = std::regex::ECMAScript;
  std::size_t i = 0;
  bool dot_all = false;
  if (re.starts_with("(?")) {
    auto close = re.find(')');
    std::string f = close == std::string::npos ? "" : re.substr(2, close - 2);
    if (!f.empty() && f.find_first_not_of("ims") == std::string::npos) {
      if (f.find('i') != std::string::npos) flags |= std::regex::icase;
      if (f.find('m') != std::string::npos) flags |= std::regex::multiline;
      dot_all = f.find('s') != std::string::npos;
      i = close + 1;
    }
  }
  std::string out;
  bool in_class = false;
  for (; i < re.size(); ++i) {
    char c = re[i];
    if (c == '\\' && i + 1 < re.size()) {
      char n = re[i + 1];
      if (n == 'A' && !in_class) {
        out += "^";
      } else if (n == 'z' && !in_class) {
        out += "$";
      } else if (n == 'Q') {
        auto end = re.find("\\E", i + 2);
        std::string lit =
            re.substr(i + 2, end == std::string::npos ? std::string::npos : end - i - 2);
        for (char l : lit) {
          if (std::string_view("\\^$.|?*+()[]{}/").find(l) != std::string_view::npos)
            out.push_back('\\');
          out.push_back(l);
        }
        i = end == std::string::npos ? re.size() : end + 1;
        continue;
      } else if (n == 'p' || n == 'P') {
        return make_error(
            "function",
            "error parsing regexp: Unicode classes (\\p) are not supported: `" + re + "`");
      } else {
        out.push_back(c);
        out.push_back(n);
      }
      ++i;
      continue;
    }
    if (in_class) {
      if (c == '[' && i + 1 < re.size() && re[i + 1] == ':') {
        auto end = re.find(":]", i + 2);
        if (end != std::string::npos) {
          out += re.substr(i, end + 2 - i);
          i = end + 1;
          continue;
        }
      }
      if (c == ']') in_class = false;
      out.push_back(c);
      continue;
    }
    if (c == '[') {
      in_class = true;
      out.push_back(c);
      if (i + 1 < re.size() && re[i + 1] == '^') out.push_back(re[++i]);
      if (i + 1 < re.size() && re[i + 1] == ']') out.push_back(re[++i]);
      continue;
    }
    if (c == '(' && re.compare(i, 3, "(?P") == 0 && i + 3 < re.size() && re[i + 3] == '<') {
      auto end = re.find('>', i);
      if (end == std::string::npos) break;
      out.push_back('(');
      i = end;
      continue;
    }
    if (c == '(' && re.compare(i, 3, "(?<") == 0 && i + 3 < re.size() && re[i + 3] != '=' &&
        re[i + 3] != '!') {
      auto end = re.find('>', i);
      if (end == std::string::npos) break;
      out.push_back('(');
      i = end;
      continue;
    }
    if (c == '.' && dot_all) {
      out += "[\\s\\S]";
      continue;
    }
    out.push_back(c);
  }
  try {
    return std::regex(out, flags);
  } catch (const std::regex_error& e) {
    return make_error("function",
                      "error parsing regexp: " + std::string(e.what()) + ": `" + re + "`");
  }
}

// Go's Regexp.Expand template: $1, ${1}, $name, ${name}, $$. Names are not kept by std::regex,
// so a named reference expands to "".
void expand(std::string& out, const std::string& repl, const std::smatch& m) {
  for (std::size_t i = 0; i < repl.size(); ++i) {
    char c = repl[i];
    if (c != '$' || i + 1 >= repl.size()) {
      out.push_back(c);
      continue;
    }
    if (repl[i + 1] == '$') {
      out.push_back('$');
      ++i;
      continue;
    }
    std::size_t start = i + 1;
    bool brace = repl[start] == '{';
    if (brace) ++start;
    std::size_t end = start;
    while (end < repl.size() &&
           (std::isalnum(static_cast<unsigned char>(repl[end])) || repl[end] == '_'))
      ++end;
    if (end == start || (brace && (end >= repl.size() || repl[end] != '}'))) {
      out.push_back('$');  // malformed: Go keeps the dollar as text
      continue;
    }
    std::string name = repl.substr(start, end - start);
    i = brace ? end : end - 1;
    if (name.find_first_not_of("0123456789") == std::string::npos && name.size() < 9) {
      auto n = static_cast<std::size_t>(std::stoul(name));
      if (n < m.size() && m[n].matched) out += m[n].str();
    }
  }
}

}  // namespace

void add_regex_functions(function_table& t) {
  // regexFind(regex, s string) (string, error): the leftmost match.
  t.add("regexFind", 2, 2, [](args_t a) -> result<value> {
    auto re = string_arg(a[0]);
    if (!re) return re.error();
    auto s = string_arg(a[1]);
    if (!s) return s.error();
    auto rx = compile(*re);
    if (!rx) return rx.error();
    std::smatch m;
    if (std::regex_search(*s, m, *rx)) return value(m[0].str());
    return value("");
  });
  // regexFindString(regex, s string, n int) (string, error): submatch n of the first match.
  t.add("regexFindString", 3, 3, [](args_t a) -> result<value> {
    auto re = string_arg(a[0]);
    if (!re) return re.error();
    auto s = string_arg(a[1]);
    if (!s) return s.error();
    auto n = int_arg(a[2]);
    if (!n) return n.error();
    auto rx = compile(*re);
    if (!rx) return rx.error();
    std::smatch m;
    if (!std::regex_search(*s, m, *rx)) {
      if (*n < -1) return make_error("function", "runtime error: index out of range");
      return value("");
    }
    if (*n < 0)
      return make_error("function",
                        "runtime error: index out of range [" + std::to_string(*n) + "]");
    if (static_cast<std::size_t>(*n) >= m.size()) return value("");
    return value(m[static_cast<std::size_t>(*n)].str());
  });
  // regexReplaceAll(regex, s, repl string) (string, error): Go's ReplaceAllString.
  t.add("regexReplaceAll", 3, 3, [](args_t a) -> result<value> {
    auto re = string_arg(a[0]);
    if (!re) return re.error();
    auto s_r = string_arg(a[1]);
    if (!s_r) return s_r.error();
    auto repl = string_arg(a[2]);
    if (!repl) return repl.error();
    auto rx = compile(*re);
    if (!rx) return rx.error();
    const std::string& s = *s_r;
    std::string out;
    std::size_t search = 0;
    std::size_t last_end = 0;
    while (search <= s.size()) {
      std::smatch m;
      auto flags =
          search > 0 ? std::regex_constants::match_prev_avail : std::regex_constants::match_default;
      if (!std::regex_search(s.begin() + static_cast<std::ptrdiff_t>(search), s.end(), m, *rx,
                             flags))
        break;
      auto start = static_cast<std::size_t>(m.position(0)) + search;
      auto end = start + static_cast<std::size_t>(m.length(0));
      out.append(s, last_end, start - last_end);
      // An empty match right after another match is not replaced (Go's rule).
      if (end > last_end || start == 0) expand(out, *repl, m);
      last_end = end;
      if (search + 1 > end) {
        ++search;
      } else {
        search = end;
      }
    }
    if (last_end < s.size()) out.append(s, last_end, std::string::npos);
    return value(out);
  });
}

}  // namespace kp::gotemplate
