#include "core/gotemplate/go_regexp.hpp"

#include <re2/re2.h>

#include "core/gotemplate/go_format.hpp"

namespace kp::gotemplate {

namespace {

// Go's regexp/syntax ErrorCode texts for RE2's codes (both libraries share the parser design,
// so the offending fragment RE2 reports is the one Go reports).
std::string go_error_text(re2::RE2::ErrorCode code) {
  switch (code) {
    case re2::RE2::ErrorBadEscape:
      return "invalid escape sequence";
    case re2::RE2::ErrorBadCharClass:
      return "invalid character class";
    case re2::RE2::ErrorBadCharRange:
      return "invalid character class range";
    case re2::RE2::ErrorMissingBracket:
      return "missing closing ]";
    case re2::RE2::ErrorMissingParen:
      return "missing closing )";
    case re2::RE2::ErrorUnexpectedParen:
      return "unexpected )";
    case re2::RE2::ErrorTrailingBackslash:
      return "trailing backslash at end of expression";
    case re2::RE2::ErrorRepeatArgument:
      return "missing argument to repetition operator";
    case re2::RE2::ErrorRepeatSize:
      return "invalid repeat count";
    case re2::RE2::ErrorRepeatOp:
      return "invalid nested repetition operator";
    case re2::RE2::ErrorBadPerlOp:
      return "invalid or unsupported Perl syntax";
    case re2::RE2::ErrorBadUTF8:
      return "invalid UTF-8";
    case re2::RE2::ErrorBadNamedCapture:
      return "invalid named capture";
    case re2::RE2::ErrorPatternTooLarge:
      return "expression too large";
    default:
      return "regexp/syntax: internal error";
  }
}

re2::StringPiece piece(std::string_view s) {
  return re2::StringPiece(s.data(), s.size());
}

// Letters and decimal digits by Unicode category; RE2 carries the tables Go's unicode has.
const re2::RE2& letter_or_digit() {
  static const re2::RE2 re("[\\pL\\p{Nd}]");
  return re;
}

}  // namespace

bool is_unicode_letter_or_digit(std::uint32_t cp) {
  if (cp < 0x80) {
    return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9');
  }
  std::string s;
  append_utf8(s, cp);
  return re2::RE2::FullMatch(s, letter_or_digit());
}

result<go_regexp> go_regexp::compile(std::string_view pattern) {
  // RE2 accepts \C (any byte), which Go's parser refuses.
  for (std::size_t i = 0; i + 1 < pattern.size(); ++i) {
    if (pattern[i] != '\\') continue;
    if (pattern[i + 1] == 'C') {
      return make_error("function", "error parsing regexp: invalid escape sequence: `\\C`");
    }
    ++i;
  }
  re2::RE2::Options options;
  options.set_log_errors(false);
  options.set_encoding(re2::RE2::Options::EncodingUTF8);
  // Go's syntax.Perl flags: Perl classes, \b, one-line mode unless (?m), and . not matching \n.
  options.set_perl_classes(true);
  options.set_word_boundary(true);
  options.set_one_line(false);
  options.set_never_nl(false);
  options.set_dot_nl(false);
  options.set_posix_syntax(false);
  options.set_longest_match(false);
  auto re = std::make_shared<const re2::RE2>(piece(pattern), options);
  if (!re->ok()) {
    return make_error("function", "error parsing regexp: " + go_error_text(re->error_code()) +
                                      ": `" + re->error_arg() + "`");
  }
  return go_regexp(std::move(re));
}

std::string go_regexp::find(std::string_view s) const {
  re2::StringPiece m;
  if (!re_->Match(piece(s), 0, s.size(), re2::RE2::UNANCHORED, &m, 1)) return "";
  return std::string(m.data(), m.size());
}

std::vector<std::string> go_regexp::find_submatch(std::string_view s) const {
  auto n = static_cast<std::size_t>(re_->NumberOfCapturingGroups()) + 1;
  std::vector<re2::StringPiece> m(n);
  if (!re_->Match(piece(s), 0, s.size(), re2::RE2::UNANCHORED, m.data(), static_cast<int>(n))) {
    return {};
  }
  std::vector<std::string> out;
  out.reserve(n);
  for (const auto& g : m) out.emplace_back(g.data() ? std::string(g.data(), g.size()) : "");
  return out;
}

void go_regexp::expand(std::string& out, std::string_view repl,
                       const std::vector<std::string_view>& groups) const {
  while (!repl.empty()) {
    auto dollar = repl.find('$');
    if (dollar == std::string_view::npos) break;
    out.append(repl.substr(0, dollar));
    repl.remove_prefix(dollar + 1);
    if (!repl.empty() && repl.front() == '$') {
      out.push_back('$');
      repl.remove_prefix(1);
      continue;
    }
    // Go's extract: a name of letters, digits and underscores, optionally in braces.
    std::string_view rest = repl;
    bool brace = !rest.empty() && rest.front() == '{';
    if (brace) rest.remove_prefix(1);
    std::size_t i = 0;
    while (i < rest.size()) {
      std::uint32_t cp = 0;
      std::size_t len = decode_utf8(rest, i, cp);
      if (cp != '_' && !is_unicode_letter_or_digit(cp)) break;
      i += len;
    }
    if (i == 0 || (brace && (i >= rest.size() || rest[i] != '}'))) {
      out.push_back('$');  // malformed: the dollar is text
      continue;
    }
    std::string_view name = rest.substr(0, i);
    repl = rest.substr(i + (brace ? 1 : 0));
    long num = 0;
    for (char c : name) {
      if (c < '0' || c > '9' || num >= 100000000) {
        num = -1;
        break;
      }
      num = num * 10 + (c - '0');
    }
    if (name.size() > 1 && name.front() == '0') num = -1;  // no leading zeros
    if (num >= 0) {
      if (static_cast<std::size_t>(num) < groups.size() &&
          groups[static_cast<std::size_t>(num)].data())
        out.append(groups[static_cast<std::size_t>(num)]);
      continue;
    }
    for (const auto& [index, group_name] : re_->CapturingGroupNames()) {
      if (group_name == name) {
        auto k = static_cast<std::size_t>(index);
        if (k < groups.size() && groups[k].data()) out.append(groups[k]);
        break;
      }
    }
  }
  out.append(repl);
}

std::string go_regexp::replace_all(std::string_view s, std::string_view repl) const {
  auto n = static_cast<std::size_t>(re_->NumberOfCapturingGroups()) + 1;
  std::vector<re2::StringPiece> m(n);
  std::vector<std::string_view> groups(n);
  std::string out;
  std::size_t search = 0;
  std::size_t last_end = 0;
  while (search <= s.size()) {
    if (!re_->Match(piece(s), search, s.size(), re2::RE2::UNANCHORED, m.data(),
                    static_cast<int>(n))) {
      break;
    }
    auto start = static_cast<std::size_t>(m[0].data() - s.data());
    std::size_t end = start + m[0].size();
    out.append(s.substr(last_end, start - last_end));
    // No replacement for an empty match right after the previous match (Go's rule).
    if (end > last_end || start == 0) {
      for (std::size_t k = 0; k < n; ++k) {
        groups[k] = m[k].data() ? std::string_view(m[k].data(), m[k].size()) : std::string_view();
      }
      expand(out, repl, groups);
    }
    last_end = end;
    // Advance by at least one character (one byte at the end or on an invalid byte).
    std::size_t width = 0;
    if (search < s.size()) {
      std::uint32_t cp = 0;
      width = decode_utf8(s, search, cp);
    }
    if (search + width > end) {
      search += width;
    } else if (search + 1 > end) {
      ++search;
    } else {
      search = end;
    }
  }
  out.append(s.substr(last_end));
  return out;
}

}  // namespace kp::gotemplate
