#pragma once
// The one table of settings: flag name, environment variable, type, help and how to read and show
// each value. Parsing, --help and docs/settings.md are all generated from it.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "config/settings.hpp"
#include "core/result.hpp"

namespace kp::config {

struct setting_spec {
  std::string group;  // section in --help and the docs
  std::string flag;   // without dashes: "metrics-port"
  std::string env;    // "METRICS_PORT"
  std::string type;   // "int", "bool", "duration", "string", "number", "Respect|Ignore", ...
  std::string help;
  bool is_bool = false;  // Go flag semantics: "-x" alone means true
  // Stores `text` into the settings, or explains (without naming the setting) why it cannot.
  std::function<status(settings&, std::string_view text)> apply;
  // The current value as it would be written in the environment.
  std::function<std::string(const settings&)> show;
};

const std::vector<setting_spec>& setting_table();

// The spec with this flag name, or nullptr.
const setting_spec* find_setting(std::string_view flag);

}  // namespace kp::config
