#pragma once
// Structured logging on spdlog: one JSON object per line ({time, level, logger, message, fields})
// when the output is not a terminal, readable text when it is. Every line passes through the
// secret scrubber (redaction.hpp) before it is written.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace kp::obs {

enum class log_level { debug, info, warn, error };

struct log_field {
  std::string key;
  std::string value;
};
using log_fields = std::vector<log_field>;

struct log_options {
  log_level level = log_level::info;
  // "stdout", "stderr" or file paths (Karpenter's LOG_OUTPUT_PATHS).
  std::vector<std::string> output_paths = {"stdout"};
  // nullopt: JSON unless the destination is a terminal; true/false forces the choice.
  std::optional<bool> json;
};

// Replaces the destinations and level of every logger. Fails naming a path it cannot open.
status setup_logging(const log_options& options);

// Output of one line, exposed for tests: the JSON or text form of a record.
std::string format_json_line(std::string_view time, log_level level, std::string_view logger,
                             std::string_view message, const log_fields& fields);
std::string format_text_line(std::string_view time, log_level level, std::string_view logger,
                             std::string_view message, const log_fields& fields);

// A named logger ("controller", "supervisor", "proxmox.region-1"). Cheap to copy.
class logger {
 public:
  explicit logger(std::string name) : name_(std::move(name)) {}
  void debug(std::string_view message, const log_fields& fields = {}) const {
    log(log_level::debug, message, fields);
  }
  void info(std::string_view message, const log_fields& fields = {}) const {
    log(log_level::info, message, fields);
  }
  void warn(std::string_view message, const log_fields& fields = {}) const {
    log(log_level::warn, message, fields);
  }
  void error(std::string_view message, const log_fields& fields = {}) const {
    log(log_level::error, message, fields);
  }
  void log(log_level level, std::string_view message, const log_fields& fields) const;
  bool enabled(log_level level) const;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

}  // namespace kp::obs
