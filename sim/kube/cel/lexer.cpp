#include "sim/kube/cel/lexer.hpp"

#include <charconv>

namespace kp::sim::kube::cel {

namespace {

bool ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool ident_char(char c) {
  return ident_start(c) || (c >= '0' && c <= '9');
}
bool digit(char c) {
  return c >= '0' && c <= '9';
}
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

error lex_error(std::size_t at, const std::string& why) {
  return make_error("cel_syntax", "Syntax error at position " + std::to_string(at) + ": " + why);
}

class lexer {
 public:
  explicit lexer(std::string_view s) : s_(s) {}

  result<std::vector<token>> run() {
    std::vector<token> out;
    while (true) {
      skip_space();
      if (i_ >= s_.size()) break;
      auto t = next();
      if (!t) return t.error();
      out.push_back(std::move(t.value()));
    }
    token end;
    end.position = s_.size();
    out.push_back(end);
    return out;
  }

 private:
  void skip_space() {
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        ++i_;
      } else if (c == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '/') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else {
        break;
      }
    }
  }

  result<token> next() {
    token t;
    t.position = i_;
    char c = s_[i_];
    // String prefixes: r/R (raw), b/B (bytes), in either order.
    if (ident_start(c)) {
      std::size_t j = i_;
      bool raw = false, bytes = false;
      while (j < s_.size() && j - i_ < 2 &&
             (s_[j] == 'r' || s_[j] == 'R' || s_[j] == 'b' || s_[j] == 'B')) {
        if (s_[j] == 'r' || s_[j] == 'R') raw = true;
        if (s_[j] == 'b' || s_[j] == 'B') bytes = true;
        ++j;
        if (j < s_.size() && (s_[j] == '"' || s_[j] == '\'')) {
          i_ = j;
          auto str = string_literal(raw);
          if (!str) return str.error();
          t.kind = bytes ? token_kind::bytes : token_kind::string;
          t.text = std::move(str.value());
          return t;
        }
      }
      std::size_t start = i_;
      while (i_ < s_.size() && ident_char(s_[i_])) ++i_;
      t.kind = token_kind::identifier;
      t.text = std::string(s_.substr(start, i_ - start));
      return t;
    }
    if (c == '"' || c == '\'') {
      auto str = string_literal(false);
      if (!str) return str.error();
      t.kind = token_kind::string;
      t.text = std::move(str.value());
      return t;
    }
    if (digit(c) || (c == '.' && i_ + 1 < s_.size() && digit(s_[i_ + 1]))) return number();
    static const char* two[] = {"==", "!=", "<=", ">=", "&&", "||"};
    for (const char* p : two) {
      if (s_.substr(i_, 2) == p) {
        i_ += 2;
        t.kind = token_kind::punct;
        t.text = p;
        return t;
      }
    }
    if (std::string_view("+-*/%!<>?:.,()[]{}").find(c) != std::string_view::npos) {
      ++i_;
      t.kind = token_kind::punct;
      t.text = std::string(1, c);
      return t;
    }
    return lex_error(i_, "unexpected character '" + std::string(1, c) + "'");
  }

  result<token> number() {
    token t;
    t.position = i_;
    std::size_t start = i_;
    if (s_[i_] == '0' && i_ + 1 < s_.size() && (s_[i_ + 1] == 'x' || s_[i_ + 1] == 'X')) {
      i_ += 2;
      std::size_t digits = i_;
      while (i_ < s_.size() && hex_value(s_[i_]) >= 0) ++i_;
      return integer_token(t, s_.substr(digits, i_ - digits), 16, start);
    }
    bool is_float = false;
    while (i_ < s_.size() && digit(s_[i_])) ++i_;
    if (i_ < s_.size() && s_[i_] == '.' && i_ + 1 < s_.size() && digit(s_[i_ + 1])) {
      is_float = true;
      ++i_;
      while (i_ < s_.size() && digit(s_[i_])) ++i_;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      std::size_t j = i_ + 1;
      if (j < s_.size() && (s_[j] == '+' || s_[j] == '-')) ++j;
      if (j < s_.size() && digit(s_[j])) {
        is_float = true;
        i_ = j;
        while (i_ < s_.size() && digit(s_[i_])) ++i_;
      }
    }
    auto text = s_.substr(start, i_ - start);
    if (is_float) {
      double v = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc{} || end != text.data() + text.size())
        return lex_error(start, "invalid number '" + std::string(text) + "'");
      t.kind = token_kind::floating;
      t.floating = v;
      return t;
    }
    return integer_token(t, text, 10, start);
  }

  result<token> integer_token(token t, std::string_view digits, int base, std::size_t start) {
    bool is_unsigned = i_ < s_.size() && (s_[i_] == 'u' || s_[i_] == 'U');
    if (is_unsigned) ++i_;
    if (i_ < s_.size() && ident_char(s_[i_]))
      return lex_error(start,
                       "invalid number '" + std::string(s_.substr(start, i_ + 1 - start)) + "'");
    std::uint64_t v = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
    if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size())
      return lex_error(start, "invalid integer literal");
    if (is_unsigned) {
      t.kind = token_kind::unsigned_integer;
      t.unsigned_integer = v;
      return t;
    }
    // The magnitude may be 2^63 only when negated; the parser folds the sign.
    if (v > static_cast<std::uint64_t>(INT64_MAX) + 1)
      return lex_error(start, "integer literal out of range");
    t.kind = token_kind::integer;
    t.unsigned_integer = v;
    t.integer =
        v > static_cast<std::uint64_t>(INT64_MAX) ? INT64_MIN : static_cast<std::int64_t>(v);
    return t;
  }

  result<std::string> string_literal(bool raw) {
    std::size_t start = i_;
    char q = s_[i_];
    bool triple = s_.substr(i_, 3) == std::string(3, q);
    i_ += triple ? 3 : 1;
    std::string out;
    while (true) {
      if (i_ >= s_.size()) return lex_error(start, "unterminated string literal");
      char c = s_[i_];
      if (triple ? s_.substr(i_, 3) == std::string(3, q) : c == q) {
        i_ += triple ? 3 : 1;
        return out;
      }
      if (!triple && (c == '\n' || c == '\r'))
        return lex_error(start, "newline in a single-quoted string literal");
      if (c != '\\' || raw) {
        out += c;
        ++i_;
        continue;
      }
      if (i_ + 1 >= s_.size()) return lex_error(start, "unterminated string literal");
      char e = s_[i_ + 1];
      i_ += 2;
      switch (e) {
        case 'a':
          out += '\a';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'v':
          out += '\v';
          break;
        case '\\':
          out += '\\';
          break;
        case '\'':
          out += '\'';
          break;
        case '"':
          out += '"';
          break;
        case '`':
          out += '`';
          break;
        case '?':
          out += '?';
          break;
        case 'x':
        case 'X':
        case 'u':
        case 'U': {
          std::size_t n = (e == 'x' || e == 'X') ? 2 : e == 'u' ? 4 : 8;
          std::uint32_t cp = 0;
          for (std::size_t k = 0; k < n; ++k) {
            if (i_ >= s_.size() || hex_value(s_[i_]) < 0)
              return lex_error(i_, "invalid escape sequence");
            cp = cp * 16 + static_cast<std::uint32_t>(hex_value(s_[i_++]));
          }
          if (e == 'x' || e == 'X')
            out += static_cast<char>(cp);
          else
            append_utf8(out, cp);
          break;
        }
        default:
          if (e >= '0' && e <= '3') {
            std::uint32_t v = static_cast<std::uint32_t>(e - '0');
            for (int k = 0; k < 2; ++k) {
              if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '7')
                return lex_error(i_, "invalid octal escape");
              v = v * 8 + static_cast<std::uint32_t>(s_[i_++] - '0');
            }
            out += static_cast<char>(v);
            break;
          }
          return lex_error(i_ - 2, "invalid escape sequence '\\" + std::string(1, e) + "'");
      }
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace

result<std::vector<token>> tokenize(std::string_view source) {
  return lexer(source).run();
}

}  // namespace kp::sim::kube::cel
