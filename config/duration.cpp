#include "config/duration.hpp"

#include <cstdint>
#include <limits>

namespace kp::config {
namespace {

struct unit {
  std::string_view name;
  std::uint64_t nanoseconds;
};

// Longest names first is not needed: every name is matched whole against the letters read.
constexpr unit units[] = {
    {"ns", 1},
    {"us", 1000},
    {"\xC2\xB5s", 1000},  // U+00B5 micro sign
    {"\xCE\xBCs", 1000},  // U+03BC Greek mu
    {"ms", 1000000},
    {"s", 1000000000ull},
    {"m", 60ull * 1000000000ull},
    {"h", 3600ull * 1000000000ull},
};

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

error invalid(std::string_view text, std::string_view why) {
  return make_error("invalid_duration", "invalid duration \"" + std::string(text) +
                                            "\": " + std::string(why) +
                                            " (use Go syntax such as 500ms, 10s, 1m30s, 2h)");
}

}  // namespace

result<duration> parse_duration(std::string_view text) {
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return duration{0};
  if (s.empty()) return invalid(text, "empty");

  // Accumulate in unsigned 64 bits and check against Go's limit (int64 nanoseconds).
  constexpr std::uint64_t limit =
      static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  std::uint64_t total = 0;
  while (!s.empty()) {
    std::uint64_t whole = 0;
    std::size_t digits = 0;
    while (!s.empty() && is_digit(s.front())) {
      if (whole > (limit - 9) / 10) return invalid(text, "out of range");
      whole = whole * 10 + static_cast<std::uint64_t>(s.front() - '0');
      s.remove_prefix(1);
      ++digits;
    }
    std::uint64_t fraction = 0;
    std::uint64_t scale = 1;
    std::size_t fraction_digits = 0;
    if (!s.empty() && s.front() == '.') {
      s.remove_prefix(1);
      while (!s.empty() && is_digit(s.front())) {
        // Digits beyond nanosecond precision of an hour are dropped, as Go does.
        if (scale < 1000000000000000000ull) {
          fraction = fraction * 10 + static_cast<std::uint64_t>(s.front() - '0');
          scale *= 10;
        }
        s.remove_prefix(1);
        ++fraction_digits;
      }
    }
    if (digits == 0 && fraction_digits == 0) return invalid(text, "expected a number");
    std::size_t unit_length = 0;
    while (unit_length < s.size() && !is_digit(s[unit_length]) && s[unit_length] != '.') {
      ++unit_length;
    }
    if (unit_length == 0) return invalid(text, "missing unit");
    std::string_view unit_name = s.substr(0, unit_length);
    s.remove_prefix(unit_length);
    const unit* found = nullptr;
    for (const auto& u : units) {
      if (u.name == unit_name) found = &u;
    }
    if (found == nullptr) {
      return invalid(text, "unknown unit \"" + std::string(unit_name) + "\"");
    }
    if (whole > limit / found->nanoseconds) return invalid(text, "out of range");
    std::uint64_t value = whole * found->nanoseconds;
    // fraction/scale of the unit, computed without floating point.
    long double part = static_cast<long double>(fraction) *
                       static_cast<long double>(found->nanoseconds) /
                       static_cast<long double>(scale);
    value += static_cast<std::uint64_t>(part);
    if (value > limit || total > limit - value) return invalid(text, "out of range");
    total += value;
  }
  auto signed_total = static_cast<std::int64_t>(total);
  return duration{negative ? -signed_total : signed_total};
}

namespace {

// Appends v / 10^precision with trailing zeros of the fraction removed, like Go's fmtFrac+fmtInt.
void append_fixed(std::string& out, std::uint64_t v, int precision) {
  std::string fraction;
  bool printing = false;
  for (int i = 0; i < precision; ++i) {
    auto digit = static_cast<char>('0' + v % 10);
    v /= 10;
    printing = printing || digit != '0';
    if (printing) fraction.insert(fraction.begin(), digit);
  }
  out += std::to_string(v);
  if (!fraction.empty()) out += "." + fraction;
}

}  // namespace

std::string format_duration(duration d) {
  std::int64_t ns = d.count();
  if (ns == 0) return "0s";
  std::string out;
  std::uint64_t u =
      ns < 0 ? static_cast<std::uint64_t>(-(ns + 1)) + 1 : static_cast<std::uint64_t>(ns);
  if (ns < 0) out += "-";
  if (u < 1000000000ull) {
    if (u < 1000) {
      out += std::to_string(u) + "ns";
    } else if (u < 1000000) {
      append_fixed(out, u, 3);
      out += "\xC2\xB5s";
    } else {
      append_fixed(out, u, 6);
      out += "ms";
    }
    return out;
  }
  std::uint64_t seconds = u / 1000000000ull;
  std::uint64_t nanos = u % 1000000000ull;
  std::uint64_t hours = seconds / 3600;
  std::uint64_t minutes = (seconds / 60) % 60;
  std::string sec;
  append_fixed(sec, (seconds % 60) * 1000000000ull + nanos, 9);
  if (hours > 0) out += std::to_string(hours) + "h";
  if (hours > 0 || minutes > 0) out += std::to_string(minutes) + "m";
  out += sec + "s";
  return out;
}

}  // namespace kp::config
