#pragma once
// Kubernetes resource quantities ("100m", "1.5Gi", "2e3") as exact integers.
// Every quantity is held as a signed count of milli-units: CPU "250m" is 250, memory "1Ki" is
// 1,024,000. One integer type for every resource keeps arithmetic and comparisons exact and
// cheap; it covers values up to about 9.2e15 units (8 PiB of memory), ample for a node.
#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace kp::model {

// How a quantity prints, as in Kubernetes: the format follows the suffix it was written with.
enum class quantity_format : std::uint8_t { decimal_si, binary_si, decimal_exponent };

struct quantity {
  std::int64_t milli = 0;
  quantity_format format = quantity_format::decimal_si;

  static quantity from_milli(std::int64_t m, quantity_format f = quantity_format::decimal_si) {
    return quantity{m, f};
  }
  // Whole units; beyond the milli-unit range the amount saturates at its bound.
  static quantity from_units(std::int64_t v, quantity_format f = quantity_format::decimal_si);
  // Whole units, rounded up as Kubernetes' Value() does ("1500m" -> 2).
  std::int64_t value() const;
  bool is_zero() const { return milli == 0; }

  // Equality compares the amount only: "1Gi" equals "1073741824".
  friend bool operator==(const quantity& a, const quantity& b) { return a.milli == b.milli; }
  friend auto operator<=>(const quantity& a, const quantity& b) { return a.milli <=> b.milli; }
};

// Sums of milli-units that clamp at the int64 bounds instead of wrapping: a total too large to
// represent stays the largest value, which fits nowhere, rather than turning negative and
// fitting everywhere.
std::int64_t saturating_add(std::int64_t a, std::int64_t b);
std::int64_t saturating_sub(std::int64_t a, std::int64_t b);
// a + b, or false when the exact sum does not fit (out is then the saturated value).
bool checked_add(std::int64_t a, std::int64_t b, std::int64_t& out);

// Parses the Kubernetes quantity grammar: sign, digits with an optional fraction, then a binary
// suffix (Ki..Ei), a decimal suffix (n, u, m, k, M, G, T, P, E) or an exponent (e3, E-2).
// Precision finer than a milli-unit is rounded up, as Kubernetes does. Anything else, and any
// value too large for 64 bits of milli-units, is an "invalid_quantity" error.
result<quantity> parse_quantity(std::string_view text);

// Canonical form, as Kubernetes prints it: the largest suffix that keeps the number an integer
// ("1536Mi", "1500m", "2k", "2e3"); a binary quantity below 1Ki or not a whole number of bytes
// prints in decimal form.
std::string to_string(const quantity& q);

}  // namespace kp::model
