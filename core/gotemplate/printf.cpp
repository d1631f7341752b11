#include "core/gotemplate/printf.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>

#include "core/gotemplate/go_format.hpp"

namespace kp::gotemplate {

namespace {

struct spec {
  bool plus = false, minus = false, sharp = false, zero = false, space = false;
  bool plus_v = false, sharp_v = false;  // %+v and %#v: field names, Go syntax
  int width = -1;
  int prec = -1;
  char verb = 0;
  // The bytes this verb may produce: what is left of the caller's bound.
  std::size_t max_bytes = std::numeric_limits<std::size_t>::max();
};

// Thrown, and caught by go_sprintf, when a verb would produce more than its spec allows: widths
// and precisions reach ten million, and a list repeats them for every element.
struct over_bound {};

void ensure_fits(std::size_t bytes, const spec& sp) {
  if (bytes > sp.max_bytes) throw over_bound{};
}

// The spec for what follows `used` bytes of this piece: the same, with the bytes left after them.
spec after(std::size_t used, const spec& sp) {
  ensure_fits(used, sp);
  spec rest = sp;
  rest.max_bytes -= used;
  return rest;
}

// A float's digits before the point (309 at most) and its sign, exponent and point.
constexpr std::size_t float_overhead = 330;

std::string pad(std::string s, const spec& sp, bool numeric) {
  if (sp.width < 0) return s;
  std::size_t runes = 0;
  for (std::size_t i = 0; i < s.size();) {
    std::uint32_t cp = 0;
    i += decode_utf8(s, i, cp);
    ++runes;
  }
  auto w = static_cast<std::size_t>(sp.width);
  if (runes >= w) return s;
  std::size_t n = w - runes;
  ensure_fits(s.size() + n, sp);
  if (sp.minus) return s + std::string(n, ' ');
  if (sp.zero && !numeric) return std::string(n, '0') + s;
  if (sp.zero) {
    std::size_t sign = (!s.empty() && (s[0] == '-' || s[0] == '+' || s[0] == ' ')) ? 1 : 0;
    return s.substr(0, sign) + std::string(n, '0') + s.substr(sign);
  }
  return std::string(n, ' ') + s;
}

std::string with_sign(std::string digits, bool negative, const spec& sp) {
  if (negative) return "-" + digits;
  if (sp.plus) return "+" + digits;
  if (sp.space) return " " + digits;
  return digits;
}

std::string integer(std::int64_t v, const spec& sp) {
  if (sp.prec == 0 && v == 0) {
    spec spaces = sp;  // fmt pads a zero printed as nothing with spaces, never zeros
    spaces.zero = false;
    return pad("", spaces, false);
  }
  bool neg = v < 0;
  std::uint64_t u = neg ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  int base = 10;
  const char* digits = "0123456789abcdef";
  std::string prefix;
  switch (sp.verb) {
    case 'x':
      base = 16;
      if (sp.sharp) prefix = "0x";
      break;
    case 'X':
      base = 16;
      digits = "0123456789ABCDEF";
      if (sp.sharp) prefix = "0X";
      break;
    case 'o':
      base = 8;
      if (sp.sharp) prefix = "0";
      break;
    case 'O':
      base = 8;
      prefix = "0o";
      break;
    case 'b':
      base = 2;
      if (sp.sharp) prefix = "0b";
      break;
    default:
      break;
  }
  std::string s;
  do {
    s.insert(s.begin(), digits[u % static_cast<unsigned>(base)]);
    u /= static_cast<unsigned>(base);
  } while (u);
  if (sp.prec >= 0 && static_cast<int>(s.size()) < sp.prec) {
    ensure_fits(static_cast<std::size_t>(sp.prec), sp);
    s.insert(0, static_cast<std::size_t>(sp.prec) - s.size(), '0');
  }
  // With a precision, fmt pads integers with spaces, never zeros.
  spec padding = sp;
  if (sp.prec >= 0) padding.zero = false;
  return pad(with_sign(prefix + s, neg, sp), padding, true);
}

// fmt's '#' flag on floats: always a decimal point, and %#g keeps its trailing zeros (up to the
// precision, 6 by default, counted in significant digits).
std::string sharp_float(std::string num, char verb, int prec) {
  int digits = 0;
  if (verb == 'g' || verb == 'G' || verb == 'x' || verb == 'X') digits = prec < 0 ? 6 : prec;
  std::string tail;
  bool has_point = false;
  bool seen_nonzero = false;
  for (std::size_t i = 0; i < num.size(); ++i) {
    char c = num[i];
    if (c == '.') {
      has_point = true;
      continue;
    }
    bool exponent = c == 'p' || c == 'P' || ((c == 'e' || c == 'E') && verb != 'x' && verb != 'X');
    if (exponent) {
      tail = num.substr(i);
      num.resize(i);
      break;
    }
    if (c != '0') seen_nonzero = true;
    if (seen_nonzero) --digits;
  }
  if (!has_point) {
    if (num == "0") --digits;  // a lone leading zero counts once
    num.push_back('.');
  }
  if (digits > 0) num.append(static_cast<std::size_t>(digits), '0');
  return num + tail;
}

std::string floating(double d, const spec& sp) {
  std::string s;
  char verb = sp.verb == 'v' ? 'g' : sp.verb;
  if ((verb == 'g' || verb == 'G') && sp.prec < 0) {
    s = format_go_float(std::fabs(d));
    if (verb == 'G') {
      for (char& c : s) c = static_cast<char>(c == 'e' ? 'E' : c);
    }
  } else {
    ensure_fits(float_overhead + static_cast<std::size_t>(std::max(sp.prec, 0)), sp);
    s = format_float_precision(std::fabs(d), verb, sp.prec < 0 ? 6 : sp.prec);
  }
  if (sp.sharp && std::isfinite(d)) s = sharp_float(s, verb, sp.prec);
  return pad(with_sign(s, std::signbit(d) && !std::isnan(d), sp), sp, std::isfinite(d));
}

std::string hex_string(const std::string& s, const spec& sp) {
  const char* digits = sp.verb == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
  // Two digits a byte, a space between bytes, "0x" before the first or before each.
  std::size_t n = s.size();
  std::size_t prefixes = !sp.sharp ? 0 : sp.space ? n : 1;
  ensure_fits(2 * n + (sp.space && n > 0 ? n - 1 : 0) + 2 * prefixes, sp);
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (sp.space && i > 0) out.push_back(' ');
    if (sp.sharp && (sp.space || i == 0)) out += sp.verb == 'X' ? "0X" : "0x";
    auto b = static_cast<unsigned char>(s[i]);
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 0xF]);
  }
  return out;
}

std::string truncate_runes(const std::string& s, int prec) {
  if (prec < 0) return s;
  std::size_t i = 0;
  for (int n = 0; n < prec && i < s.size(); ++n) {
    std::uint32_t cp = 0;
    i += decode_utf8(s, i, cp);
  }
  return s.substr(0, i);
}

std::string format_one(const value& v, const spec& sp, int depth = 0);

// fmt's badVerb: "%!f(int=   03)", the value printed with %v under the same flags.
std::string bad_verb(char verb, const value& v, const spec& sp) {
  std::string out = "%!";
  out.push_back(verb);
  out.push_back('(');
  if (v.is_null()) return out + "<nil>)";
  spec as_v = sp;
  as_v.verb = 'v';
  as_v.plus_v = false;
  as_v.sharp_v = false;
  return out + v.type_name() + "=" + format_one(v, as_v) + ")";
}

// strconv.CanBackquote: one line, no control characters but tab, no backquote, valid UTF-8.
bool can_backquote(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    std::uint32_t cp = 0;
    std::size_t n = decode_utf8(s, i, cp);
    if (cp == 0xFFFD && n == 1) return false;
    if (cp == '`' || cp == 0xFEFF || (cp < 0x20 && cp != '\t') || cp == 0x7F) return false;
    i += n;
  }
  return true;
}

// strconv.QuoteToASCII: like Quote, with every non-ASCII character escaped.
std::string quote_ascii(const std::string& s) {
  std::string q = go_quote(s);
  std::string out;
  for (std::size_t i = 0; i < q.size();) {
    std::uint32_t cp = 0;
    std::size_t n = decode_utf8(q, i, cp);
    if (cp < 0x80) {
      out.push_back(q[i]);
    } else {
      char buf[16];
      if (cp < 0x10000) {
        std::snprintf(buf, sizeof buf, "\\u%04x", cp);
      } else {
        std::snprintf(buf, sizeof buf, "\\U%08x", cp);
      }
      out += buf;
    }
    i += n;
  }
  return out;
}

// Hexadecimal ('x', 'X') and binary ('b') forms of a float, as strconv.FormatFloat.
std::string float_special_form(double d, const spec& sp) {
  if (!std::isfinite(d)) return format_float_precision(d, 'g', 0);
  if (sp.verb == 'b') {
    auto bits = std::bit_cast<std::uint64_t>(d);
    auto exp = static_cast<int>((bits >> 52) & 0x7FF);
    std::uint64_t mant = bits & ((std::uint64_t{1} << 52) - 1);
    if (exp == 0) {
      exp = 1;
    } else {
      mant |= std::uint64_t{1} << 52;
    }
    return std::string(std::signbit(d) ? "-" : "") + std::to_string(mant) + "p" +
           (exp - 1075 < 0 ? "-" : "+") + std::to_string(std::abs(exp - 1075));
  }
  char buf[64];
  if (sp.prec >= 0) {
    std::snprintf(buf, sizeof buf, "%.*a", sp.prec, d);
  } else {
    std::snprintf(buf, sizeof buf, "%a", d);
  }
  std::string out = buf;
  // Go writes at least two exponent digits.
  auto p = out.find('p');
  if (p != std::string::npos && out.size() - p == 3) out.insert(p + 2, "0");
  if (sp.verb == 'X') {
    for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

void format_into(std::string& out, const value& v, const spec& sp, int depth);

// A list or map as fmt prints it, appended to out: elements are written in place, not copied up
// through each level, since a width repeated for every element can make each one megabytes.
void composite(std::string& out, const value& v, const spec& sp, int depth) {
  const std::size_t start = out.size();
  auto rest = [&] { return after(out.size() - start, sp); };
  bool go_syntax = sp.sharp_v && sp.verb == 'v';
  const char* sep = go_syntax ? ", " : " ";
  if (v.is_list()) {
    if (go_syntax && v.is_string_list() && v.size() == 0) {
      out += "[]string(nil)";  // a nil slice
      return;
    }
    out += go_syntax ? v.type_name() + "{" : "[";
    bool first = true;
    for (const auto& e : v.as_list()) {
      if (!first) out += sep;
      first = false;
      format_into(out, e, rest(), depth + 1);
    }
    out += go_syntax ? "}" : "]";
    return;
  }
  bool record = v.is_record();
  if (go_syntax) {
    out += v.type_name() + "{";
  } else {
    out += record ? "{" : "map[";
  }
  bool first = true;
  for (const auto& e : v.as_map().entries) {
    if (!first) out += sep;
    first = false;
    if (!record) {
      format_into(out, value(e.key), rest(), depth + 1);
      out += ":";
    } else if (sp.plus_v || go_syntax) {
      out += e.key + ":";
    }
    format_into(out, e.val, rest(), depth + 1);
  }
  out += go_syntax || record ? "}" : "]";
}

std::string format_one(const value& v, const spec& sp, int depth) {
  char verb = sp.verb;
  if (verb == 'T') return pad(v.is_null() ? "<nil>" : v.type_name(), sp, false);
  if (v.is_list() || v.is_map()) {
    std::string out;
    composite(out, v, sp, depth);
    return out;
  }
  if (v.is_null()) {
    // A nil inside a list or map is a nil interface{}; at the top it is an untyped nil.
    if (depth > 0) return sp.sharp_v ? "interface {}(nil)" : "<nil>";
    if (verb == 'v') return pad("<nil>", sp, false);
    return bad_verb(verb, v, sp);
  }
  switch (v.type()) {
    case value::kind::boolean:
      if (verb == 'v' || verb == 't') return pad(v.as_bool() ? "true" : "false", sp, false);
      return bad_verb(verb, v, sp);
    case value::kind::integer:
      switch (verb) {
        case 'v':
        case 'd':
        case 'x':
        case 'X':
        case 'o':
        case 'O':
        case 'b':
          return integer(v.as_int(), sp);
        case 'c': {
          std::string s;
          auto c = v.as_int();
          append_utf8(s, c < 0 || c > 0x10FFFF ? 0xFFFD : static_cast<std::uint32_t>(c));
          return pad(s, sp, false);
        }
        case 'q':
          return pad(go_quote_rune(v.as_int()), sp, false);
        case 'U': {
          char buf[32];
          std::snprintf(buf, sizeof buf, "U+%0*llX", sp.prec > 4 ? sp.prec : 4,
                        static_cast<unsigned long long>(v.as_int()));
          std::string out = buf;
          auto c = v.as_int();
          if (sp.sharp && c >= 0 && c <= 0x10FFFF &&
              is_go_printable(static_cast<std::uint32_t>(c))) {
            out += " '";
            append_utf8(out, static_cast<std::uint32_t>(c));
            out += "'";
          }
          return pad(out, sp, false);
        }
        default:
          return bad_verb(verb, v, sp);
      }
    case value::kind::floating:
      switch (verb) {
        case 'v':
        case 'e':
        case 'E':
        case 'f':
        case 'F':
        case 'g':
        case 'G':
          return floating(v.as_double(), sp);
        case 'x':
        case 'X':
        case 'b': {
          double d = v.as_double();
          std::string s = float_special_form(std::fabs(d), sp);
          if (sp.sharp && sp.verb != 'b' && std::isfinite(d)) s = sharp_float(s, sp.verb, sp.prec);
          return pad(with_sign(s, std::signbit(d) && !std::isnan(d), sp), sp, std::isfinite(d));
        }
        default:
          return bad_verb(verb, v, sp);
      }
    case value::kind::string: {
      const std::string& str = v.as_string();
      switch (verb) {
        case 'v':
          if (sp.sharp_v) return pad(go_quote(truncate_runes(str, sp.prec)), sp, false);
          return pad(truncate_runes(str, sp.prec), sp, false);
        case 's':
          return pad(truncate_runes(str, sp.prec), sp, false);
        case 'q': {
          std::string t = truncate_runes(str, sp.prec);
          ensure_fits(t.size() + 2, sp);  // quoting never shortens
          if (sp.sharp && can_backquote(t)) return pad("`" + t + "`", sp, false);
          return pad(sp.plus ? quote_ascii(t) : go_quote(t), sp, false);
        }
        case 'x':
        case 'X':
          return pad(hex_string(truncate_runes(str, sp.prec), sp), sp, false);
        default:
          return bad_verb(verb, v, sp);
      }
    }
    default:
      return bad_verb(verb, v, sp);
  }
}

void format_into(std::string& out, const value& v, const spec& sp, int depth) {
  if (sp.verb != 'T' && (v.is_list() || v.is_map())) {
    composite(out, v, sp, depth);
  } else {
    out += format_one(v, sp, depth);
  }
}

}  // namespace

namespace {

// fmt's parsenum: a decimal number at f[i], nullopt when there is none or it exceeds 1e6.
std::optional<int> parse_count(std::string_view f, std::size_t& i, std::size_t end) {
  if (i >= end || f[i] < '0' || f[i] > '9') return std::nullopt;
  int n = 0;
  for (; i < end && f[i] >= '0' && f[i] <= '9'; ++i) {
    if (n > 1000000) {
      i = end;  // as fmt: an absurd number swallows the rest
      return std::nullopt;
    }
    n = n * 10 + (f[i] - '0');
  }
  return n;
}

// fmt's reordering state: the next argument, and whether an explicit [n] index was good.
struct argument_cursor {
  std::size_t next = 0;
  bool good = true;
  bool reordered = false;
};

// An explicit argument index "[n]" at f[i] (one-based); true when one was read.
bool read_index(std::string_view f, std::size_t& i, argument_cursor& cur, std::size_t count) {
  if (i >= f.size() || f[i] != '[') return false;
  cur.reordered = true;
  std::string_view rest = f.substr(i);
  if (rest.size() >= 3) {
    auto close = rest.find(']', 1);
    if (close != std::string_view::npos) {
      std::size_t j = 1;
      auto n = parse_count(rest, j, close);
      i += close + 1;
      if (n && j == close && *n >= 1 && static_cast<std::size_t>(*n) <= count) {
        cur.next = static_cast<std::size_t>(*n - 1);
        return true;
      }
      cur.good = false;
      return n && j == close;
    }
  }
  i += 1;
  cur.good = false;
  return false;
}

// A '*' width or precision from the next argument: an int within +-1e6, else nullopt.
std::optional<int> count_from_argument(std::span<const value> args, argument_cursor& cur) {
  if (cur.next >= args.size()) return std::nullopt;
  const value& a = args[cur.next++];
  if (!a.is_int() || a.as_int() > 1000000 || a.as_int() < -1000000) return std::nullopt;
  return static_cast<int>(a.as_int());
}

// fmt.Sprintf, throwing over_bound before the result would exceed max_bytes.
std::string sprintf_within(std::string_view f, std::span<const value> args, std::size_t max_bytes) {
  std::string out;
  argument_cursor cur;
  std::size_t i = 0;
  const std::size_t end = f.size();
  while (i < end) {
    char c = f[i];
    if (c != '%') {
      out.push_back(c);
      ++i;
      continue;
    }
    ++i;
    cur.good = true;
    spec sp;
    for (; i < end; ++i) {
      char fl = f[i];
      if (fl == '+') {
        sp.plus = true;
      } else if (fl == '-') {
        sp.minus = true;
        sp.zero = false;  // never zero padding on the right
      } else if (fl == '#') {
        sp.sharp = true;
      } else if (fl == '0') {
        sp.zero = !sp.minus;
      } else if (fl == ' ') {
        sp.space = true;
      } else {
        break;
      }
    }
    bool after_index = read_index(f, i, cur, args.size());
    if (i < end && f[i] == '*') {
      ++i;
      auto w = count_from_argument(args, cur);
      if (!w) {
        out += "%!(BADWIDTH)";
      } else {
        sp.width = *w;
        if (sp.width < 0) {
          sp.width = -sp.width;
          sp.minus = true;
          sp.zero = false;
        }
      }
      after_index = false;
    } else if (auto w = parse_count(f, i, end)) {
      sp.width = *w;
      if (after_index) cur.good = false;  // "%[3]2d"
    }
    if (i + 1 < end && f[i] == '.') {
      ++i;
      if (after_index) cur.good = false;  // "%[3].2d"
      after_index = read_index(f, i, cur, args.size());
      if (i < end && f[i] == '*') {
        ++i;
        auto p = count_from_argument(args, cur);
        if (p && *p >= 0) {
          sp.prec = *p;
        } else {
          out += "%!(BADPREC)";
        }
        after_index = false;
      } else {
        sp.prec = parse_count(f, i, end).value_or(0);
      }
    }
    if (!after_index) after_index = read_index(f, i, cur, args.size());
    if (i >= end) {
      out += "%!(NOVERB)";
      break;
    }
    std::uint32_t cp = static_cast<unsigned char>(f[i]);
    std::size_t n = cp < 0x80 ? 1 : decode_utf8(f, i, cp);
    i += n;
    if (cp == '%') {
      out.push_back('%');
      continue;
    }
    std::string verb_text;
    append_utf8(verb_text, cp);
    if (!cur.good) {
      out += "%!" + verb_text + "(BADINDEX)";
      continue;
    }
    if (cur.next >= args.size()) {
      out += "%!" + verb_text + "(MISSING)";
      continue;
    }
    const value& a = args[cur.next++];
    if (cp >= 0x80 || !std::isalpha(static_cast<int>(cp))) {
      // Not a verb we know: fmt reports the argument it consumed.
      out += "%!" + verb_text;
      out += a.is_null() ? "(<nil>)" : "(" + a.type_name() + "=" + format_go_value(a) + ")";
      continue;
    }
    sp.verb = static_cast<char>(cp);
    if (sp.verb == 'v') {
      // %+v and %#v select struct field names and Go syntax; they are not the + and # flags.
      sp.plus_v = sp.plus;
      sp.sharp_v = sp.sharp;
      sp.plus = false;
      sp.sharp = false;
    }
    sp.max_bytes = max_bytes;
    format_into(out, a, after(out.size(), sp), 0);
    ensure_fits(out.size(), sp);
  }
  // Reordered arguments are not checked for extras, as in fmt.
  if (!cur.reordered && cur.next < args.size()) {
    out += "%!(EXTRA ";
    for (std::size_t k = cur.next; k < args.size(); ++k) {
      if (k > cur.next) out += ", ";
      out += args[k].is_null() ? "<nil>" : args[k].type_name() + "=" + format_go_value(args[k]);
    }
    out += ")";
  }
  if (out.size() > max_bytes) throw over_bound{};
  return out;
}

}  // namespace

std::optional<std::string> go_sprintf(std::string_view f, std::span<const value> args,
                                      std::size_t max_bytes) {
  try {
    return sprintf_within(f, args, max_bytes);
  } catch (const over_bound&) {
    return std::nullopt;
  }
}

std::string go_sprintf(std::string_view f, std::span<const value> args) {
  return sprintf_within(f, args, std::numeric_limits<std::size_t>::max());
}

std::optional<std::string> go_sprint(std::span<const value> args, std::size_t max_bytes) {
  std::string out;
  for (std::size_t k = 0; k < args.size(); ++k) {
    if (k > 0 && !args[k].is_string() && !args[k - 1].is_string()) out.push_back(' ');
    out += format_go_value(args[k]);
    if (out.size() > max_bytes) return std::nullopt;  // one operand can be repeated many times
  }
  return out;
}

std::optional<std::string> go_sprintln(std::span<const value> args, std::size_t max_bytes) {
  std::string out;
  for (std::size_t k = 0; k < args.size(); ++k) {
    if (k > 0) out.push_back(' ');
    out += format_go_value(args[k]);
    if (out.size() >= max_bytes) return std::nullopt;
  }
  out.push_back('\n');
  return out;
}

}  // namespace kp::gotemplate
