#pragma once
// An optional 64-bit integer in 8 bytes instead of std::optional's 16: the smallest value stands
// for "none". For fields held in every model pod (times in Unix milliseconds, grace periods in
// seconds), where that value never occurs. Reads and writes like the std::optional it converts to
// and from.
#include <cstdint>
#include <limits>
#include <optional>

namespace kp::model {

class compact_optional_int64 {
 public:
  compact_optional_int64() = default;
  compact_optional_int64(std::nullopt_t) {}                      // NOLINT: implicit, as optional
  compact_optional_int64(std::int64_t value) : value_(value) {}  // NOLINT: implicit, as optional
  compact_optional_int64(std::optional<std::int64_t> value)      // NOLINT: implicit, as optional
      : value_(value.value_or(none)) {}

  bool has_value() const { return value_ != none; }
  explicit operator bool() const { return has_value(); }
  // As std::optional: reading the value of none is a precondition violation (here: the sentinel).
  std::int64_t operator*() const { return value_; }
  std::int64_t value_or(std::int64_t fallback) const { return has_value() ? value_ : fallback; }
  void reset() { value_ = none; }
  operator std::optional<std::int64_t>() const {  // NOLINT: implicit, as optional
    if (!has_value()) return std::nullopt;
    return value_;
  }

  friend bool operator==(compact_optional_int64, compact_optional_int64) = default;
  friend bool operator==(compact_optional_int64 a, const std::optional<std::int64_t>& b) {
    return std::optional<std::int64_t>(a) == b;
  }

 private:
  static constexpr std::int64_t none = std::numeric_limits<std::int64_t>::min();
  std::int64_t value_ = none;
};

}  // namespace kp::model
