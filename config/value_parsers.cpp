#include "config/value_parsers.hpp"

#include <charconv>
#include <cmath>

#include "core/text/trim.hpp"

namespace kp::config {
namespace {

std::string quoted(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

struct gate_field {
  const char* name;
  bool feature_gates::*member;
};

constexpr gate_field gate_fields[] = {
    {"NodeRepair", &feature_gates::node_repair},
    {"ReservedCapacity", &feature_gates::reserved_capacity},
    {"SpotToSpotConsolidation", &feature_gates::spot_to_spot_consolidation},
    {"NodeOverlay", &feature_gates::node_overlay},
    {"StaticCapacity", &feature_gates::static_capacity},
    {"CapacityBuffer", &feature_gates::capacity_buffer},
};

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

}  // namespace

std::string format_number(double value) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return ec == std::errc{} ? std::string(buffer, end) : std::to_string(value);
}

result<bool> parse_bool(std::string_view text) {
  for (auto yes : {"1", "t", "T", "TRUE", "true", "True"}) {
    if (text == yes) return true;
  }
  for (auto no : {"0", "f", "F", "FALSE", "false", "False"}) {
    if (text == no) return false;
  }
  return make_error("invalid_bool", "invalid value " + quoted(text) + ": expected true or false");
}

result<std::int64_t> parse_integer(std::string_view text, std::int64_t min, std::int64_t max) {
  auto range = "expected an integer from " + std::to_string(min) + " to " + std::to_string(max);
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec == std::errc::invalid_argument || end != digits.data() + digits.size()) {
    return make_error("invalid_integer", "invalid value " + quoted(text) + ": " + range);
  }
  if (ec == std::errc::result_out_of_range || value < min || value > max) {
    return make_error("out_of_range", "value " + quoted(text) + " is out of range: " + range);
  }
  return value;
}

result<double> parse_number(std::string_view text, double min, double max) {
  auto range = "expected a number from " + format_number(min) + " to " + format_number(max);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() ||
      !std::isfinite(value)) {
    return make_error("invalid_number", "invalid value " + quoted(text) + ": " + range);
  }
  if (value < min || value > max) {
    return make_error("out_of_range", "value " + quoted(text) + " is out of range: " + range);
  }
  return value;
}

result<std::size_t> parse_choice(std::string_view text, const std::vector<std::string>& allowed) {
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    if (allowed[i] == text) return i;
  }
  return make_error("invalid_choice",
                    "invalid value " + quoted(text) + ": expected one of " + join(allowed, ", "));
}

const std::vector<std::string>& feature_gate_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& field : gate_fields) out.emplace_back(field.name);
    return out;
  }();
  return names;
}

result<feature_gates> parse_feature_gates(std::string_view text) {
  feature_gates gates;
  std::string_view rest = text;
  while (!text::trim(rest).empty()) {
    auto comma = rest.find(',');
    std::string_view item = text::trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (item.empty()) continue;
    auto equals = item.find('=');
    if (equals == std::string_view::npos) {
      return make_error("invalid_feature_gate", "invalid feature gate entry " + quoted(item) +
                                                    ": expected Name=true|false");
    }
    std::string_view name = text::trim(item.substr(0, equals));
    std::string_view value = text::trim(item.substr(equals + 1));
    const gate_field* field = nullptr;
    for (const auto& candidate : gate_fields) {
      if (name == candidate.name) field = &candidate;
    }
    if (field == nullptr) {
      return make_error("unknown_feature_gate", "unknown feature gate " + quoted(name) +
                                                    ": known gates are " +
                                                    join(feature_gate_names(), ", "));
    }
    auto flag = parse_bool(value);
    if (!flag) {
      return make_error("invalid_feature_gate", "feature gate " + std::string(name) +
                                                    ": invalid value " + quoted(value) +
                                                    ": expected true or false");
    }
    gates.*(field->member) = *flag;
  }
  return gates;
}

std::string format_feature_gates(const feature_gates& gates) {
  std::string out;
  for (const auto& field : gate_fields) {
    if (!out.empty()) out += ",";
    out += std::string(field.name) + "=" + (gates.*(field.member) ? "true" : "false");
  }
  return out;
}

}  // namespace kp::config
