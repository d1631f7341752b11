#include "sim/pve/parameter_checks.hpp"

#include <cctype>
#include <cstdint>

#include "sim/pve/number_text.hpp"

namespace kp::sim::pve {

namespace {
bool digits_only(std::string_view s) {
  if (s.empty()) return false;
  for (char ch : s)
    if (!std::isdigit(static_cast<unsigned char>(ch))) return false;
  return true;
}
}  // namespace

std::string type_check_failed(std::string_view type, std::string_view got) {
  return "type check ('" + std::string(type) + "') failed - got '" + std::string(got) + "'";
}

std::string invalid_format(std::string_view why) {
  return "invalid format - " + std::string(why) + "\n";
}

bool is_integer_text(std::string_view text) {
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) text.remove_prefix(1);
  return digits_only(text);
}

result<int> check_vmid(const std::string& name, const std::string& text) {
  if (!is_integer_text(text))
    return make_error("param:" + name, type_check_failed("integer", text));
  const bool looks_valid = text.size() >= 3 && text.size() <= 9 && text.front() >= '1' &&
                           text.front() <= '9' && digits_only(text);
  if (!looks_valid)
    return make_error("param:" + name, invalid_format("value does not look like a valid VM ID"));
  return *parse_number<int>(text);  // at most 9 digits: always fits
}

result<std::int64_t> check_integer(const std::string& name, const std::string& text,
                                   std::optional<std::int64_t> min,
                                   std::optional<std::int64_t> max) {
  if (!is_integer_text(text))
    return make_error("param:" + name, type_check_failed("integer", text));
  auto value = parse_number<std::int64_t>(text);
  if (!value) {
    // Too many digits for 64 bits: Perl compares it as a float, beyond any bound a schema sets.
    const bool negative = text.front() == '-';
    if (negative && min)
      return make_error("param:" + name,
                        "value must have a minimum value of " + std::to_string(*min));
    if (!negative && max)
      return make_error("param:" + name,
                        "value must have a maximum value of " + std::to_string(*max));
    value = negative ? INT64_MIN : INT64_MAX;
  }
  if (max && *value > *max)
    return make_error("param:" + name,
                      "value must have a maximum value of " + std::to_string(*max));
  if (min && *value < *min)
    return make_error("param:" + name,
                      "value must have a minimum value of " + std::to_string(*min));
  return *value;
}

bool is_config_id(std::string_view id) {
  if (id.size() < 2 || !std::isalpha(static_cast<unsigned char>(id.front()))) return false;
  for (char ch : id)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-')) return false;
  return true;
}

}  // namespace kp::sim::pve
