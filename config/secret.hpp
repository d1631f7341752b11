#pragma once
// A secret value (token secret, password) whose every printed form is "<redacted>", so it cannot
// end up in a log line, an error message or a metric by accident. reveal() is the one way to
// read it, used only where the value goes on the wire.
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace kp::config {

class secret {
 public:
  secret() = default;
  explicit secret(std::string value) : value_(std::move(value)) {}

  const std::string& reveal() const { return value_; }
  bool empty() const { return value_.empty(); }

  friend bool operator==(const secret&, const secret&) = default;
  friend std::ostream& operator<<(std::ostream& out, const secret&) { return out << "<redacted>"; }

 private:
  std::string value_;
};

inline constexpr std::string_view redacted_text = "<redacted>";

}  // namespace kp::config

template <>
struct fmt::formatter<kp::config::secret> : fmt::formatter<std::string_view> {
  template <class FormatContext>
  auto format(const kp::config::secret&, FormatContext& ctx) const {
    return fmt::formatter<std::string_view>::format(kp::config::redacted_text, ctx);
  }
};
