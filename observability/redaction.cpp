#include "observability/redaction.hpp"

#include <mutex>

namespace kp::obs {
namespace {

// Shorter values would blank out ordinary words in log lines.
constexpr std::size_t min_secret_length = 4;

std::mutex registry_mutex;
std::vector<std::string>& registered() {
  static std::vector<std::string> secrets;
  return secrets;
}

}  // namespace

std::string redact(std::string_view text, const std::vector<std::string>& secrets) {
  std::string out(text);
  for (const auto& s : secrets) {
    if (s.size() < min_secret_length) continue;
    for (auto at = out.find(s); at != std::string::npos; at = out.find(s, at + redacted.size())) {
      out.replace(at, s.size(), redacted);
    }
  }
  return out;
}

void register_secret(std::string value) {
  if (value.size() < min_secret_length) return;
  std::lock_guard lock(registry_mutex);
  for (const auto& s : registered()) {
    if (s == value) return;
  }
  registered().push_back(std::move(value));
}

std::string redact_registered(std::string_view text) {
  std::lock_guard lock(registry_mutex);
  if (registered().empty()) return std::string(text);
  return redact(text, registered());
}

std::string redact_authorization(std::string_view header_value) {
  auto space = header_value.find_first_of(" =");
  if (space == std::string_view::npos) return std::string(redacted);
  return std::string(header_value.substr(0, space + 1)) + std::string(redacted);
}

}  // namespace kp::obs
