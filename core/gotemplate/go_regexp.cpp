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

// Text as Go's regexp reads it: every byte of invalid UTF-8 is U+FFFD of width 1. RE2 reads
// only valid UTF-8, so matching runs on a copy with each such byte replaced by U+FFFD, and match
// offsets are mapped back to the original bytes.
class go_text {
 public:
  explicit go_text(std::string_view s) : original_(s) {
    for (std::size_t i = 0; i < s.size();) {
      std::uint32_t cp = 0;
      std::size_t n = decode_utf8(s, i, cp);
      if (cp == 0xFFFD && n == 1) {
        invalid_ = true;
        break;
      }
      i += n;
    }
    if (!invalid_) return;
    for (std::size_t i = 0; i < s.size();) {
      std::uint32_t cp = 0;
      std::size_t n = decode_utf8(s, i, cp);
      if (cp == 0xFFFD && n == 1) {
        clean_ += "\xEF\xBF\xBD";
        offsets_.insert(offsets_.end(), {i, i + 1, i + 1});
      } else {
        clean_.append(s.substr(i, n));
        for (std::size_t k = 0; k < n; ++k) offsets_.push_back(i + k);
      }
      i += n;
    }
    offsets_.push_back(s.size());
  }

  std::string_view scanned() const { return invalid_ ? std::string_view(clean_) : original_; }
  std::size_t original_offset(std::size_t pos) const { return invalid_ ? offsets_[pos] : pos; }
  // The original bytes of a piece of scanned(); a null view for a group that did not take part.
  std::string_view original(const re2::StringPiece& p) const {
    if (!p.data()) return {};
    auto start = static_cast<std::size_t>(p.data() - scanned().data());
    std::size_t from = original_offset(start);
    return original_.substr(from, original_offset(start + p.size()) - from);
  }

 private:
  std::string_view original_;
  bool invalid_ = false;
  std::string clean_;
  std::vector<std::size_t> offsets_;  // original offset of each scanned byte, and of the end
};

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
  go_text text(s);
  std::string_view scanned = text.scanned();
  re2::StringPiece m;
  if (!re_->Match(piece(scanned), 0, scanned.size(), re2::RE2::UNANCHORED, &m, 1)) return "";
  return std::string(text.original(m));
}

std::vector<std::string> go_regexp::find_submatch(std::string_view s) const {
  go_text text(s);
  std::string_view scanned = text.scanned();
  auto n = static_cast<std::size_t>(re_->NumberOfCapturingGroups()) + 1;
  std::vector<re2::StringPiece> m(n);
  if (!re_->Match(piece(scanned), 0, scanned.size(), re2::RE2::UNANCHORED, m.data(),
                  static_cast<int>(n))) {
    return {};
  }
  std::vector<std::string> out;
  out.reserve(n);
  for (const auto& g : m) out.emplace_back(text.original(g));
  return out;
}

bool go_regexp::expand(std::string& out, std::string_view repl,
                       const std::vector<std::string_view>& groups, std::size_t max_bytes) const {
  while (!repl.empty()) {
    // Each step adds at most a piece of repl and one group: both already exist.
    if (out.size() > max_bytes) return false;
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
  return out.size() <= max_bytes;
}

std::optional<std::string> go_regexp::replace_all(std::string_view original, std::string_view repl,
                                                  std::size_t max_bytes) const {
  go_text text(original);
  std::string_view s = text.scanned();
  auto n = static_cast<std::size_t>(re_->NumberOfCapturingGroups()) + 1;
  std::vector<re2::StringPiece> m(n);
  std::vector<std::string_view> groups(n);
  std::string out;
  std::size_t search = 0;
  std::size_t last_end = 0;
  auto copy_between = [&](std::size_t from, std::size_t to) {
    std::size_t a = text.original_offset(from);
    out.append(original.substr(a, text.original_offset(to) - a));
  };
  while (search <= s.size()) {
    if (!re_->Match(piece(s), search, s.size(), re2::RE2::UNANCHORED, m.data(),
                    static_cast<int>(n))) {
      break;
    }
    auto start = static_cast<std::size_t>(m[0].data() - s.data());
    std::size_t end = start + m[0].size();
    copy_between(last_end, start);
    // No replacement for an empty match right after the previous match (Go's rule).
    if (end > last_end || start == 0) {
      for (std::size_t k = 0; k < n; ++k) groups[k] = text.original(m[k]);
      if (!expand(out, repl, groups, max_bytes)) return std::nullopt;
    }
    last_end = end;
    // Advance by at least one character (one byte at the end).
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
  copy_between(last_end, s.size());
  if (out.size() > max_bytes) return std::nullopt;
  return out;
}

}  // namespace kp::gotemplate
