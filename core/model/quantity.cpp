#include "core/model/quantity.hpp"

#include <array>
#include <limits>

namespace kp::model {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

error invalid(std::string_view text, std::string_view why) {
  return make_error("invalid_quantity",
                    "quantity \"" + std::string(text) + "\" is malformed: " + std::string(why));
}

// a * b with overflow detection (both non-negative).
bool mul(std::int64_t a, std::int64_t b, std::int64_t& out) {
  return !__builtin_mul_overflow(a, b, &out);
}

}  // namespace

bool checked_add(std::int64_t a, std::int64_t b, std::int64_t& out) {
  if (!__builtin_add_overflow(a, b, &out)) return true;
  out = b > 0 ? kMax : std::numeric_limits<std::int64_t>::min();
  return false;
}

std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  checked_add(a, b, out);
  return out;
}

std::int64_t saturating_sub(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (!__builtin_sub_overflow(a, b, &out)) return out;
  return b < 0 ? kMax : std::numeric_limits<std::int64_t>::min();
}

quantity quantity::from_units(std::int64_t v, quantity_format f) {
  std::int64_t m = 0;
  if (__builtin_mul_overflow(v, std::int64_t{1000}, &m))
    m = v > 0 ? kMax : std::numeric_limits<std::int64_t>::min();
  return quantity{m, f};
}

std::int64_t quantity::value() const {
  if (milli >= 0) return milli / 1000 + (milli % 1000 != 0 ? 1 : 0);
  return milli / 1000;  // toward zero is ceiling for negatives
}

result<quantity> parse_quantity(std::string_view text) {
  std::string_view s = text;
  if (s.empty()) return invalid(text, "empty");
  bool negative = false;
  if (s.front() == '+' || s.front() == '-') {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  // Digits: integer part, optional '.' and fraction. At least one digit in total.
  std::size_t i = 0;
  std::string digits;  // all significant digits, integer and fraction, without the dot
  int fraction_digits = 0;
  bool seen_dot = false;
  bool any_digit = false;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c >= '0' && c <= '9') {
      any_digit = true;
      if (seen_dot) ++fraction_digits;
      digits.push_back(c);
    } else if (c == '.' && !seen_dot) {
      seen_dot = true;
    } else {
      break;
    }
  }
  if (!any_digit) return invalid(text, "no digits");
  std::string_view suffix = s.substr(i);

  // Scale as a power of ten (decimal) or a multiplier (binary).
  int exp10 = 0;
  std::int64_t binary_multiplier = 1;
  quantity_format format = quantity_format::decimal_si;
  if (suffix.empty()) {
  } else if (suffix.size() == 2 && suffix[1] == 'i') {
    static constexpr std::string_view kBin = "KMGTPE";
    auto pos = kBin.find(suffix[0]);
    if (pos == std::string_view::npos) return invalid(text, "unknown suffix");
    binary_multiplier = std::int64_t{1} << (10 * (pos + 1));
    format = quantity_format::binary_si;
  } else if (suffix.size() == 1 &&
             std::string_view("numkMGTPE").find(suffix[0]) != std::string_view::npos) {
    switch (suffix[0]) {
      case 'n':
        exp10 = -9;
        break;
      case 'u':
        exp10 = -6;
        break;
      case 'm':
        exp10 = -3;
        break;
      case 'k':
        exp10 = 3;
        break;
      case 'M':
        exp10 = 6;
        break;
      case 'G':
        exp10 = 9;
        break;
      case 'T':
        exp10 = 12;
        break;
      case 'P':
        exp10 = 15;
        break;
      case 'E':
        exp10 = 18;
        break;
    }
  } else if (suffix[0] == 'e' || suffix[0] == 'E') {
    std::string_view e = suffix.substr(1);
    bool eneg = false;
    if (!e.empty() && (e[0] == '+' || e[0] == '-')) {
      eneg = e[0] == '-';
      e.remove_prefix(1);
    }
    if (e.empty() || e.size() > 4) return invalid(text, "bad exponent");
    int v = 0;
    for (char c : e) {
      if (c < '0' || c > '9') return invalid(text, "bad exponent");
      v = v * 10 + (c - '0');
    }
    exp10 = eneg ? -v : v;
    format = quantity_format::decimal_exponent;
  } else {
    return invalid(text, "unknown suffix");
  }

  // Strip leading zeros so long zero-padded inputs do not overflow.
  std::size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return quantity{0, format};
  // value = digits * 10^(exp10 + 3 - fraction_digits) milli-units, times binary multiplier.
  int scale = exp10 + 3 - fraction_digits;
  std::string_view sig(digits);
  sig.remove_prefix(first);
  bool round_up = false;
  std::int64_t m = 0;
  if (binary_multiplier != 1 && scale < 0) {
    // Binary with fine fraction ("1.001Ki"): multiply before dividing to stay exact.
    for (char c : sig)
      if (!mul(m, 10, m) || __builtin_add_overflow(m, c - '0', &m))
        return invalid(text, "too large");
    if (!mul(m, binary_multiplier, m)) return invalid(text, "too large");
    for (int k = 0; k < -scale; ++k) {
      if (m % 10 != 0) round_up = true;
      m /= 10;
    }
  } else {
    if (scale < 0) {
      // Drop digits below a milli-unit; any non-zero dropped digit rounds the magnitude up.
      std::size_t drop = static_cast<std::size_t>(-scale);
      if (drop >= sig.size()) {
        round_up = true;  // non-zero (leading zeros were stripped)
        sig = {};
      } else {
        for (std::size_t k = sig.size() - drop; k < sig.size(); ++k)
          if (sig[k] != '0') round_up = true;
        sig.remove_suffix(drop);
      }
      scale = 0;
    }
    for (char c : sig)
      if (!mul(m, 10, m) || __builtin_add_overflow(m, c - '0', &m))
        return invalid(text, "too large");
    for (int k = 0; k < scale; ++k)
      if (!mul(m, 10, m)) return invalid(text, "too large");
    if (!mul(m, binary_multiplier, m)) return invalid(text, "too large");
  }
  if (round_up) {
    if (m == kMax) return invalid(text, "too large");
    ++m;
  }
  return quantity{negative ? -m : m, format};
}

std::string to_string(const quantity& q) {
  std::int64_t m = q.milli;
  if (m == 0) return "0";
  bool negative = m < 0;
  std::uint64_t mag = negative ? static_cast<std::uint64_t>(-(m + 1)) + 1 : m;
  std::string sign = negative ? "-" : "";
  quantity_format f = q.format;
  if (f == quantity_format::binary_si) {
    // Below 1Ki, or not whole bytes: decimal avoids rounding (as Kubernetes does).
    if (mag < 1024 * 1000 || mag % 1000 != 0) f = quantity_format::decimal_si;
  }
  if (f == quantity_format::binary_si) {
    std::uint64_t bytes = mag / 1000;
    static constexpr std::array<const char*, 7> kSuffix = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    int k = 0;
    while (k < 6 && bytes % 1024 == 0) {
      bytes /= 1024;
      ++k;
    }
    return sign + std::to_string(bytes) + kSuffix[k];
  }
  // Decimal: the exponent (multiple of 3, from -3) that leaves an integer mantissa.
  int exp = -3;
  std::uint64_t mant = mag;
  while (mant % 1000 == 0 && exp < 18) {
    mant /= 1000;
    exp += 3;
  }
  if (f == quantity_format::decimal_exponent) {
    if (exp == 0) return sign + std::to_string(mant);
    return sign + std::to_string(mant) + "e" + std::to_string(exp);
  }
  const char* suffix = "";
  switch (exp) {
    case -3:
      suffix = "m";
      break;
    case 0:
      suffix = "";
      break;
    case 3:
      suffix = "k";
      break;
    case 6:
      suffix = "M";
      break;
    case 9:
      suffix = "G";
      break;
    case 12:
      suffix = "T";
      break;
    case 15:
      suffix = "P";
      break;
    case 18:
      suffix = "E";
      break;
  }
  return sign + std::to_string(mant) + suffix;
}

}  // namespace kp::model
