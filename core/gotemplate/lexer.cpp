#include "core/gotemplate/lexer.hpp"

#include <cstdio>

#include "core/gotemplate/go_format.hpp"

namespace kp::gotemplate {

namespace {

constexpr std::string_view left_delim = "{{";
constexpr std::string_view right_delim = "}}";

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
bool is_alnum(char c) {
  auto u = static_cast<unsigned char>(c);
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         u >= 0x80;  // Go accepts Unicode letters in names; we accept any non-ASCII byte
}

// fmt's %#U: U+0023 '#'.
std::string describe_rune(std::string_view s, std::size_t pos) {
  std::uint32_t cp = 0;
  decode_utf8(s, pos, cp);
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", cp);
  std::string out = buf;
  if (cp >= 0x20 && cp != 0x7F && !(cp >= 0x80 && cp < 0xA0)) {
    out += " '";
    append_utf8(out, cp);
    out += "'";
  }
  return out;
}

class lexer {
 public:
  explicit lexer(std::string_view text) : in_(text) {}

  std::vector<token> run() {
    while (lex_text()) {
    }
    return std::move(tokens_);
  }

 private:
  void emit(token_kind k, std::size_t start, std::size_t end) {
    tokens_.push_back(token{k, in_.substr(start, end - start), start, {}});
  }
  bool fail(std::string message) {
    tokens_.push_back(token{token_kind::error, {}, pos_, std::move(message)});
    return false;
  }
  bool starts(std::string_view s, std::size_t at) const { return in_.substr(at).starts_with(s); }
  char peek(std::size_t off = 0) const { return pos_ + off < in_.size() ? in_[pos_ + off] : '\0'; }
  bool at_end(std::size_t off = 0) const { return pos_ + off >= in_.size(); }

  // " -}}" at pos: a right trim marker; "}}": a plain right delimiter.
  bool at_right_delim(bool& trim) const {
    if (pos_ + 1 < in_.size() && is_space(in_[pos_]) && in_[pos_ + 1] == '-' &&
        starts(right_delim, pos_ + 2)) {
      trim = true;
      return true;
    }
    trim = false;
    return starts(right_delim, pos_);
  }

  void skip_leading_space() {
    while (pos_ < in_.size() && is_space(in_[pos_])) ++pos_;
  }

  // Text up to the next action; returns false at the end or on error.
  bool lex_text() {
    std::size_t start = pos_;
    auto found = in_.find(left_delim, pos_);
    if (found == std::string_view::npos) {
      if (start < in_.size()) emit(token_kind::text, start, in_.size());
      pos_ = in_.size();
      tokens_.push_back(token{token_kind::eof, {}, pos_, {}});
      return false;
    }
    std::size_t after = found + left_delim.size();
    bool trim = after + 1 < in_.size() && in_[after] == '-' && is_space(in_[after + 1]);
    std::size_t text_end = found;
    if (trim) {
      while (text_end > start && is_space(in_[text_end - 1])) --text_end;
    }
    if (text_end > start) emit(token_kind::text, start, text_end);
    pos_ = after + (trim ? 2 : 0);
    if (starts("/*", pos_)) return lex_comment();
    emit(token_kind::left_delim, found, after);
    return lex_inside_action();
  }

  bool lex_comment() {
    auto end = in_.find("*/", pos_ + 2);
    if (end == std::string_view::npos) return fail("unclosed comment");
    pos_ = end + 2;
    bool trim = false;
    if (!at_right_delim(trim)) return fail("comment ends before closing delimiter");
    pos_ += (trim ? 2 : 0) + right_delim.size();
    if (trim) skip_leading_space();
    return true;
  }

  bool lex_inside_action() {
    int paren_depth = 0;
    while (true) {
      bool trim = false;
      if (at_right_delim(trim)) {
        if (paren_depth != 0) return fail("unclosed left paren");
        std::size_t start = pos_ + (trim ? 2 : 0);
        emit(token_kind::right_delim, start, start + right_delim.size());
        pos_ = start + right_delim.size();
        if (trim) skip_leading_space();
        return true;
      }
      if (at_end()) return fail("unclosed action");
      std::size_t start = pos_;
      char c = in_[pos_];
      if (is_space(c)) {
        while (!at_end() && is_space(in_[pos_])) {
          // Leave the space of a " -}}" trim marker to the delimiter.
          if (pos_ + 1 < in_.size() && in_[pos_ + 1] == '-' && starts(right_delim, pos_ + 2)) break;
          ++pos_;
        }
        if (pos_ > start) emit(token_kind::space, start, pos_);
        continue;
      }
      ++pos_;
      switch (c) {
        case '=':
          emit(token_kind::assign, start, pos_);
          continue;
        case ':':
          if (peek() != '=') return fail("expected :=");
          ++pos_;
          emit(token_kind::declare, start, pos_);
          continue;
        case '|':
          emit(token_kind::pipe, start, pos_);
          continue;
        case ',':
          emit(token_kind::comma, start, pos_);
          continue;
        case '"':
          if (!lex_quote(start)) return false;
          continue;
        case '`': {
          auto end = in_.find('`', pos_);
          if (end == std::string_view::npos) return fail("unterminated raw quoted string");
          pos_ = end + 1;
          emit(token_kind::raw_string, start, pos_);
          continue;
        }
        case '\'':
          if (!lex_char(start)) return false;
          continue;
        case '$':
          if (!lex_name(start, token_kind::variable)) return false;
          continue;
        case '.':
          if (peek() >= '0' && peek() <= '9') {
            pos_ = start;
            if (!lex_number()) return false;
            continue;
          }
          if (!lex_name(start, token_kind::field)) return false;
          continue;
        case '(':
          ++paren_depth;
          emit(token_kind::left_paren, start, pos_);
          continue;
        case ')':
          if (--paren_depth < 0) return fail("unexpected right paren");
          emit(token_kind::right_paren, start, pos_);
          continue;
        default:
          break;
      }
      if (c == '+' || c == '-' || (c >= '0' && c <= '9')) {
        pos_ = start;
        if (!lex_number()) return false;
        continue;
      }
      if (is_alnum(c)) {
        while (!at_end() && is_alnum(in_[pos_])) ++pos_;
        if (!at_terminator()) return fail("bad character " + describe_rune(in_, pos_));
        emit(keyword_kind(in_.substr(start, pos_ - start)), start, pos_);
        continue;
      }
      if (static_cast<unsigned char>(c) < 0x80 && c >= 0x21 && c < 0x7F) {
        emit(token_kind::character, start, pos_);
        continue;
      }
      pos_ = start;
      return fail("unrecognized character in action: " + describe_rune(in_, start));
    }
  }

  static token_kind keyword_kind(std::string_view w) {
    if (w == "true" || w == "false") return token_kind::boolean;
    if (w == "nil") return token_kind::nil;
    if (w == "block") return token_kind::keyword_block;
    if (w == "break") return token_kind::keyword_break;
    if (w == "continue") return token_kind::keyword_continue;
    if (w == "define") return token_kind::keyword_define;
    if (w == "else") return token_kind::keyword_else;
    if (w == "end") return token_kind::keyword_end;
    if (w == "if") return token_kind::keyword_if;
    if (w == "range") return token_kind::keyword_range;
    if (w == "template") return token_kind::keyword_template;
    if (w == "with") return token_kind::keyword_with;
    return token_kind::identifier;
  }

  bool at_terminator() const {
    if (at_end()) return true;
    char c = in_[pos_];
    if (is_space(c)) return true;
    switch (c) {
      case '.':
      case ',':
      case '|':
      case ':':
      case ')':
      case '(':
      case '=':
        return true;
      default:
        return starts(right_delim, pos_);
    }
  }

  // After "." or "$": a name, or just the dot / the root variable.
  bool lex_name(std::size_t start, token_kind kind) {
    if (at_terminator()) {
      emit(kind == token_kind::field ? token_kind::dot : token_kind::variable, start, pos_);
      return true;
    }
    while (!at_end() && is_alnum(in_[pos_])) ++pos_;
    if (!at_terminator()) return fail("bad character " + describe_rune(in_, pos_));
    emit(kind, start, pos_);
    return true;
  }

  bool lex_quote(std::size_t start) {
    while (true) {
      if (at_end() || in_[pos_] == '\n') return fail("unterminated quoted string");
      char c = in_[pos_++];
      if (c == '\\') {
        if (at_end() || in_[pos_] == '\n') return fail("unterminated quoted string");
        ++pos_;
      } else if (c == '"') {
        break;
      }
    }
    emit(token_kind::string, start, pos_);
    return true;
  }

  bool lex_char(std::size_t start) {
    while (true) {
      if (at_end() || in_[pos_] == '\n') return fail("unterminated character constant");
      char c = in_[pos_++];
      if (c == '\\') {
        if (at_end() || in_[pos_] == '\n') return fail("unterminated character constant");
        ++pos_;
      } else if (c == '\'') {
        break;
      }
    }
    emit(token_kind::char_constant, start, pos_);
    return true;
  }

  bool lex_number() {
    std::size_t start = pos_;
    if (peek() == '+' || peek() == '-') ++pos_;
    std::string_view digits = "0123456789_";
    bool hex = false;
    if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
      pos_ += 2;
      hex = true;
      digits = "0123456789abcdefABCDEF_";
    } else if (peek() == '0' && (peek(1) == 'o' || peek(1) == 'O')) {
      pos_ += 2;
      digits = "01234567_";
    } else if (peek() == '0' && (peek(1) == 'b' || peek(1) == 'B')) {
      pos_ += 2;
      digits = "01_";
    }
    auto run = [&] {
      while (!at_end() && digits.find(in_[pos_]) != std::string_view::npos) ++pos_;
    };
    run();
    if (peek() == '.') {
      ++pos_;
      run();
    }
    char e = peek();
    if ((!hex && (e == 'e' || e == 'E')) || (hex && (e == 'p' || e == 'P'))) {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      while (!at_end() && in_[pos_] >= '0' && in_[pos_] <= '9') ++pos_;
    }
    if (peek() == 'i') ++pos_;
    if (!at_end() && is_alnum(in_[pos_])) {
      ++pos_;
      return fail("bad number syntax: " + go_quote(in_.substr(start, pos_ - start)));
    }
    emit(token_kind::number, start, pos_);
    return true;
  }

  std::string_view in_;
  std::size_t pos_ = 0;
  std::vector<token> tokens_;
};

}  // namespace

std::string describe_token(const token& t) {
  switch (t.kind) {
    case token_kind::eof:
      return "EOF";
    case token_kind::error:
      return t.message;
    case token_kind::keyword_block:
    case token_kind::keyword_break:
    case token_kind::keyword_continue:
    case token_kind::keyword_define:
    case token_kind::keyword_else:
    case token_kind::keyword_end:
    case token_kind::keyword_if:
    case token_kind::keyword_range:
    case token_kind::keyword_template:
    case token_kind::keyword_with:
      return "<" + std::string(t.text) + ">";
    default:
      break;
  }
  // Long tokens are cut to 10 characters, as Go's %.10q does.
  std::size_t runes = 0;
  std::size_t i = 0;
  while (i < t.text.size() && runes < 10) {
    std::uint32_t cp = 0;
    i += decode_utf8(t.text, i, cp);
    ++runes;
  }
  if (i < t.text.size()) return go_quote(t.text.substr(0, i)) + "...";
  return go_quote(t.text);
}

std::vector<token> lex_template(std::string_view text) {
  return lexer(text).run();
}

}  // namespace kp::gotemplate
