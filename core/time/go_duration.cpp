#include "core/time/go_duration.hpp"

#include <cstdint>
#include <limits>

namespace kp::time {

namespace {

struct unit {
  std::string_view name;
  std::int64_t nanoseconds;
};

// Longest names first so "ms" is not read as "m" followed by garbage.
constexpr unit units[] = {
    {"ns", 1},           {"us", 1000},      {"\xc2\xb5s", 1000},  // U+00B5 micro sign
    {"\xce\xbcs", 1000},                                          // U+03BC greek mu
    {"ms", 1000000},     {"s", 1000000000}, {"m", 60000000000},  {"h", 3600000000000}};

error invalid(std::string_view text, std::string_view why) {
  return make_error("invalid_duration", "invalid duration \"" + std::string(text) +
                                            "\": " + std::string(why) +
                                            " (use Go syntax such as 500ms, 10s, 1m30s, 2h)");
}

}  // namespace

result<std::chrono::nanoseconds> parse_go_duration(std::string_view text) {
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return std::chrono::nanoseconds(0);
  if (s.empty()) return invalid(text, "empty");

  // As Go does: whole numbers in integers (overflow checked), the fraction in floating point.
  constexpr std::uint64_t limit =
      static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  std::uint64_t total = 0;
  while (!s.empty()) {
    std::size_t i = 0;
    std::uint64_t whole = 0;
    bool digits = false;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (whole > (limit - 9) / 10) return invalid(text, "out of range");
      whole = whole * 10 + static_cast<std::uint64_t>(s[i] - '0');
      ++i;
      digits = true;
    }
    std::uint64_t fraction = 0;
    double scale = 1;
    if (i < s.size() && s[i] == '.') {
      ++i;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        if (fraction <= (limit - 9) / 10) {  // further digits are below a nanosecond
          fraction = fraction * 10 + static_cast<std::uint64_t>(s[i] - '0');
          scale *= 10;
        }
        ++i;
        digits = true;
      }
    }
    if (!digits) return invalid(text, "expected a number");
    s.remove_prefix(i);
    const unit* found = nullptr;
    for (const auto& u : units) {
      if (s.substr(0, u.name.size()) == u.name && (!found || u.name.size() > found->name.size()))
        found = &u;
    }
    if (!found) {
      if (s.empty()) return invalid(text, "missing unit");
      std::size_t n = 0;
      while (n < s.size() && !(s[n] >= '0' && s[n] <= '9') && s[n] != '.') ++n;
      return invalid(text, "unknown unit \"" + std::string(s.substr(0, n)) + "\"");
    }
    s.remove_prefix(found->name.size());
    auto per = static_cast<std::uint64_t>(found->nanoseconds);
    if (whole > limit / per) return invalid(text, "out of range");
    std::uint64_t amount = whole * per;
    amount += static_cast<std::uint64_t>(static_cast<double>(fraction) *
                                         (static_cast<double>(per) / scale));
    if (amount > limit || total > limit - amount) return invalid(text, "out of range");
    total += amount;
  }
  auto ns = static_cast<std::int64_t>(total);
  return std::chrono::nanoseconds(negative ? -ns : ns);
}

std::string format_go_duration(std::chrono::nanoseconds d) {
  std::int64_t ns = d.count();
  if (ns == 0) return "0s";
  std::string sign = ns < 0 ? "-" : "";
  std::uint64_t u =
      ns < 0 ? static_cast<std::uint64_t>(-(ns + 1)) + 1 : static_cast<std::uint64_t>(ns);
  auto fraction = [](std::uint64_t value, std::uint64_t per) {
    std::string out = std::to_string(value / per);
    std::uint64_t rest = value % per;
    if (rest) {
      std::string digits = std::to_string(rest);
      digits.insert(0, std::to_string(per).size() - 1 - digits.size(), '0');
      while (!digits.empty() && digits.back() == '0') digits.pop_back();
      out += "." + digits;
    }
    return out;
  };
  if (u < 1000) return sign + std::to_string(u) + "ns";
  if (u < 1000000) return sign + fraction(u, 1000) + "\xc2\xb5s";
  if (u < 1000000000) return sign + fraction(u, 1000000) + "ms";
  std::uint64_t hours = u / 3600000000000ull;
  u %= 3600000000000ull;
  std::uint64_t minutes = u / 60000000000ull;
  u %= 60000000000ull;
  std::string out = sign;
  if (hours) out += std::to_string(hours) + "h";
  if (hours || minutes) out += std::to_string(minutes) + "m";
  return out + fraction(u, 1000000000) + "s";
}

}  // namespace kp::time
