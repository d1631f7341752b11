#include "core/gotemplate/go_format.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <re2/re2.h>

namespace kp::gotemplate {

namespace {

// The shortest digits that read back as |d|, and the decimal exponent of the first one:
// |d| = D.DDD x 10^exp.
void shortest_digits(double d, std::string& digits, int& exp) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, std::fabs(d), std::chars_format::scientific);
  std::string_view s(buf, static_cast<std::size_t>(res.ptr - buf));
  auto e = s.find('e');
  digits.clear();
  for (char c : s.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  exp = std::atoi(std::string(s.substr(e + 1)).c_str());
}

std::string exponent_form(const std::string& digits, int exp, bool two_digit_exp) {
  std::string out(1, digits[0]);
  if (digits.size() > 1) {
    out.push_back('.');
    out.append(digits, 1, std::string::npos);
  }
  out.push_back('e');
  out.push_back(exp < 0 ? '-' : '+');
  int a = std::abs(exp);
  if (two_digit_exp && a < 10) out.push_back('0');
  out += std::to_string(a);
  return out;
}

std::string fixed_form(const std::string& digits, int exp) {
  std::string out;
  if (exp < 0) {
    out = "0.";
    out.append(static_cast<std::size_t>(-exp - 1), '0');
    out += digits;
    return out;
  }
  auto int_len = static_cast<std::size_t>(exp) + 1;
  if (digits.size() <= int_len) {
    out = digits;
    out.append(int_len - digits.size(), '0');
    return out;
  }
  out = digits.substr(0, int_len);
  out.push_back('.');
  out.append(digits, int_len, std::string::npos);
  return out;
}

std::string special_float(double d) {
  if (std::isnan(d)) return "NaN";
  return d > 0 ? "+Inf" : "-Inf";
}

}  // namespace

std::string format_go_float(double d) {
  if (!std::isfinite(d)) return special_float(d);
  if (d == 0) return std::signbit(d) ? "-0" : "0";
  std::string digits;
  int exp = 0;
  shortest_digits(d, digits, exp);
  // strconv's 'g' with the shortest precision decides on the exponent form with precision 6.
  std::string body =
      (exp < -4 || exp >= 6) ? exponent_form(digits, exp, true) : fixed_form(digits, exp);
  return (d < 0 ? "-" : "") + body;
}

std::string format_json_float(double d) {
  if (!std::isfinite(d)) return "null";
  if (d == 0) return std::signbit(d) ? "-0" : "0";
  std::string digits;
  int exp = 0;
  shortest_digits(d, digits, exp);
  double a = std::fabs(d);
  std::string body =
      (a < 1e-6 || a >= 1e21) ? exponent_form(digits, exp, false) : fixed_form(digits, exp);
  return (d < 0 ? "-" : "") + body;
}

std::string format_float_precision(double d, char fmt, int prec) {
  if (!std::isfinite(d)) return special_float(d);
  // A double's exact decimal expansion has at most 767 significant digits and 1074 decimals,
  // yet C's printf computes every digit of a larger precision (0.4 s for ten million, however
  // short the %g result). Ask for no more than those and write the zeros that remain.
  bool fixed = fmt == 'f' || fmt == 'F';
  int asked = std::min(prec, fixed ? 1100 : 800);
  char spec[8] = {'%', '.', '*', fmt == 'F' ? 'f' : fmt, 0};
  int n = std::snprintf(nullptr, 0, spec, asked, d);
  std::string out(static_cast<std::size_t>(n), '\0');
  std::snprintf(out.data(), out.size() + 1, spec, asked, d);
  if (prec > asked && fmt != 'g' && fmt != 'G') {  // %g drops trailing zeros
    auto exponent = out.find_first_of("eE");
    out.insert(exponent == std::string::npos ? out.size() : exponent,
               static_cast<std::size_t>(prec - asked), '0');
  }
  return out;
}

std::size_t decode_utf8(std::string_view s, std::size_t i, std::uint32_t& cp) {
  auto b = static_cast<unsigned char>(s[i]);
  cp = 0xFFFD;
  if (b < 0x80) {
    cp = b;
    return 1;
  }
  std::size_t len = 0;
  std::uint32_t min = 0;
  if ((b & 0xE0) == 0xC0) {
    len = 2, cp = b & 0x1F, min = 0x80;
  } else if ((b & 0xF0) == 0xE0) {
    len = 3, cp = b & 0x0F, min = 0x800;
  } else if ((b & 0xF8) == 0xF0) {
    len = 4, cp = b & 0x07, min = 0x10000;
  } else {
    cp = 0xFFFD;
    return 1;
  }
  if (i + len > s.size()) {
    cp = 0xFFFD;
    return 1;
  }
  for (std::size_t k = 1; k < len; ++k) {
    auto c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xC0) != 0x80) {
      cp = 0xFFFD;
      return 1;
    }
    cp = (cp << 6) | (c & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    cp = 0xFFFD;
    return 1;
  }
  return len;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

namespace {

void append_hex(std::string& out, std::uint32_t v, int width) {
  static const char* hex = "0123456789abcdef";
  for (int i = width - 1; i >= 0; --i) out.push_back(hex[(v >> (4 * i)) & 0xF]);
}

void append_escaped_rune(std::string& out, std::uint32_t cp, char quote) {
  switch (cp) {
    case '\a':
      out += "\\a";
      return;
    case '\b':
      out += "\\b";
      return;
    case '\f':
      out += "\\f";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    case '\v':
      out += "\\v";
      return;
    case '\\':
      out += "\\\\";
      return;
    default:
      break;
  }
  if (cp == static_cast<std::uint32_t>(quote)) {
    out.push_back('\\');
    out.push_back(quote);
    return;
  }
  if (is_go_printable(cp)) {
    append_utf8(out, cp);
  } else if (cp < 0x80) {
    out += "\\x";
    append_hex(out, cp, 2);
  } else if (cp < 0x10000) {
    out += "\\u";
    append_hex(out, cp, 4);
  } else {
    out += "\\U";
    append_hex(out, cp, 8);
  }
}

}  // namespace

bool is_go_printable(std::uint32_t cp) {
  if (cp < 0x80) return cp >= 0x20 && cp < 0x7F;
  // Unicode categories from RE2's tables, which are Go's too.
  static const re2::RE2 graphic("[\\pL\\pM\\pN\\pP\\pS]");
  std::string s;
  append_utf8(s, cp);
  return re2::RE2::FullMatch(s, graphic);
}

std::string go_quote(std::string_view s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    std::uint32_t cp = 0;
    std::size_t n = decode_utf8(s, i, cp);
    if (cp == 0xFFFD && n == 1 && static_cast<unsigned char>(s[i]) >= 0x80) {
      out += "\\x";  // an invalid byte keeps its value
      append_hex(out, static_cast<unsigned char>(s[i]), 2);
    } else {
      append_escaped_rune(out, cp, '"');
    }
    i += n;
  }
  out.push_back('"');
  return out;
}

std::string go_quote_rune(std::int64_t r) {
  std::string out = "'";
  auto cp = (r < 0 || r > 0x10FFFF) ? 0xFFFDu : static_cast<std::uint32_t>(r);
  append_escaped_rune(out, cp, '\'');
  out.push_back('\'');
  return out;
}

std::string format_go_value(const value& v) {
  switch (v.type()) {
    case value::kind::null:
      return "<nil>";
    case value::kind::boolean:
      return v.as_bool() ? "true" : "false";
    case value::kind::integer:
      return std::to_string(v.as_int());
    case value::kind::floating:
      return format_go_float(v.as_double());
    case value::kind::string:
      return v.as_string();
    case value::kind::list: {
      std::string out = "[";
      bool first = true;
      for (const auto& e : v.as_list()) {
        if (!first) out.push_back(' ');
        first = false;
        out += format_go_value(e);
      }
      return out + "]";
    }
    case value::kind::map: {
      bool record = v.is_record();
      std::string out = record ? "{" : "map[";
      bool first = true;
      for (const auto& e : v.as_map().entries) {
        if (!first) out.push_back(' ');
        first = false;
        if (!record) out += e.key + ":";
        out += format_go_value(e.val);
      }
      return out + (record ? "}" : "]");
    }
  }
  return {};
}

std::string format_action_value(const value& v) {
  if (v.is_nil_pointer()) return "<nil>";
  if (v.is_null()) return "<no value>";
  return format_go_value(v);
}

}  // namespace kp::gotemplate
