#include "core/gotemplate/literal.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "core/gotemplate/go_format.hpp"

namespace kp::gotemplate {

// strconv.Unquote for "..." and `...`; false on a malformed escape.
bool unquote_literal(std::string_view q, std::string& out) {
  out.clear();
  if (q.size() < 2) return false;
  if (q.front() == '`') {
    for (char c : q.substr(1, q.size() - 2)) {
      if (c != '\r') out.push_back(c);  // Go drops carriage returns from raw strings
    }
    return true;
  }
  std::string_view s = q.substr(1, q.size() - 2);
  char quote = q.front();
  for (std::size_t i = 0; i < s.size();) {
    char c = s[i++];
    if (c == quote || c == '\n') return false;
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (i >= s.size()) return false;
    char e = s[i++];
    auto hex_digits = [&](std::size_t n, std::uint32_t& v) {
      if (i + n > s.size()) return false;
      v = 0;
      for (std::size_t k = 0; k < n; ++k) {
        char h = s[i + k];
        int d = (h >= '0' && h <= '9')   ? h - '0'
                : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                         : -1;
        if (d < 0) return false;
        v = v * 16 + static_cast<std::uint32_t>(d);
      }
      i += n;
      return true;
    };
    std::uint32_t v = 0;
    switch (e) {
      case 'a':
        out.push_back('\a');
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'v':
        out.push_back('\v');
        break;
      case '\\':
        out.push_back('\\');
        break;
      case '\'':
      case '"':
        if (e != quote) return false;
        out.push_back(e);
        break;
      case 'x':
        if (!hex_digits(2, v)) return false;
        out.push_back(static_cast<char>(v));
        break;
      case 'u':
        if (!hex_digits(4, v) || (v >= 0xD800 && v <= 0xDFFF)) return false;
        append_utf8(out, v);
        break;
      case 'U':
        if (!hex_digits(8, v) || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return false;
        append_utf8(out, v);
        break;
      default:
        if (e >= '0' && e <= '7') {
          if (i + 2 > s.size()) return false;
          v = static_cast<std::uint32_t>(e - '0');
          for (int k = 0; k < 2; ++k) {
            char o = s[i++];
            if (o < '0' || o > '7') return false;
            v = v * 8 + static_cast<std::uint32_t>(o - '0');
          }
          if (v > 255) return false;
          out.push_back(static_cast<char>(v));
          break;
        }
        return false;
    }
  }
  return true;
}

namespace {

// strconv's underscoreOK: underscores only between digits (or after a base prefix).
bool underscores_ok(std::string_view s) {
  char saw = '^';
  std::size_t i = 0;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  bool hex = false;
  if (s.size() >= 2 && s[0] == '0') {
    char b = static_cast<char>(s[1] | 0x20);
    if (b == 'b' || b == 'o' || b == 'x') {
      i = 2;
      saw = '0';
      hex = b == 'x';
    }
  }
  for (; i < s.size(); ++i) {
    char c = s[i];
    char l = static_cast<char>(c | 0x20);
    if ((c >= '0' && c <= '9') || (hex && l >= 'a' && l <= 'f')) {
      saw = '0';
      continue;
    }
    if (c == '_') {
      if (saw != '0') return false;
      saw = '_';
      continue;
    }
    if (saw == '_') return false;
    saw = '!';
  }
  return saw != '_';
}

}  // namespace

// Go's number constants: integers in any base (with _), floats, and character constants.
bool parse_number_literal(std::string_view text, value& out) {
  if (text.find('_') != std::string_view::npos && !underscores_ok(text)) return false;
  std::string t;
  for (char c : text) {
    if (c != '_') t.push_back(c);
  }
  if (t.empty() || t.back() == 'i') return false;  // complex numbers are not supported
  bool neg = false;
  std::string_view s = t;
  if (s.front() == '+' || s.front() == '-') {
    neg = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  int base = 10;
  bool hex = false;
  if (s.size() > 1 && s[0] == '0') {
    char p = s[1];
    if (p == 'x' || p == 'X')
      base = 16, hex = true, s.remove_prefix(2);
    else if (p == 'o' || p == 'O')
      base = 8, s.remove_prefix(2);
    else if (p == 'b' || p == 'B')
      base = 2, s.remove_prefix(2);
    else if (s.find_first_of(".eE") == std::string_view::npos)
      base = 8, s.remove_prefix(1);
  }
  if (s.empty()) return false;
  bool floaty = hex ? s.find_first_of(".pP") != std::string_view::npos
                    : s.find_first_of(".eE") != std::string_view::npos;
  if (!floaty) {
    std::uint64_t u = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), u, base);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return false;
    if (neg) {
      if (u > static_cast<std::uint64_t>(INT64_MAX) + 1) return false;
      out = value(static_cast<std::int64_t>(0 - u));
    } else {
      if (u > static_cast<std::uint64_t>(INT64_MAX)) {
        out = value(static_cast<double>(u));  // Go keeps it as uint64; a float is close enough
      } else {
        out = value(static_cast<std::int64_t>(u));
      }
    }
    return true;
  }
  if (base == 2 || base == 8) return false;
  std::string num(t.substr(t.front() == '+' ? 1 : 0));
  char* end = nullptr;
  double d = std::strtod(num.c_str(), &end);
  if (end != num.c_str() + num.size() || !std::isfinite(d)) return false;  // Go: out of range
  out = value(d);
  return true;
}

}  // namespace kp::gotemplate
