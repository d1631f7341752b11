#pragma once
// Numbers from external text (manifests, settings, API replies, files) through std::from_chars:
// the whole text must be the number, nothing is skipped, nothing throws, and a value that does
// not fit its type is refused rather than wrapped or clamped. Every conversion of outside text
// to a number goes through here.
#include <charconv>
#include <cmath>
#include <concepts>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "core/result.hpp"

namespace kp {

// The whole of `text` as a T: digits in `base`, with a leading '-' only for a signed T. Empty
// text, a '+', spaces, any trailing character or a value outside T's range give nullopt.
template <std::integral T>
std::optional<T> parse_integer(std::string_view text, int base = 10) noexcept {
  T value{};
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value, base);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

// The whole of `text` as a finite double, in plain or exponent form ("1.5", "-2e3", ".5").
// Infinity, NaN, hexadecimal floats, a '+', spaces and trailing characters give nullopt.
inline std::optional<double> parse_decimal(std::string_view text) noexcept {
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value, std::chars_format::general);
  if (ec != std::errc() || ptr != end || text.empty() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

// As parse_integer, bounded to [min, max], with an "invalid_number" error naming the field,
// the text and the reason: `spec.network[0].name: "net99999999999" is not a whole number in
// 0..31`.
template <std::integral T>
result<T> parse_integer_field(std::string_view field, std::string_view text, T min, T max,
                              int base = 10) {
  auto v = parse_integer<T>(text, base);
  if (v && *v >= min && *v <= max) return *v;
  std::string shown(text.substr(0, 64));
  if (text.size() > 64) shown += "...";
  return make_error("invalid_number", std::string(field) + ": \"" + shown +
                                          "\" is not a whole number in " + std::to_string(min) +
                                          ".." + std::to_string(max));
}

}  // namespace kp
