#include "observability/logging.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include "observability/redaction.hpp"

namespace kp::obs {
namespace {

// The logger name and fields travel inside spdlog's payload, separated by control characters
// that never occur in our messages, so one spdlog logger serves every named logger.
constexpr char record_separator = '\x1f';
constexpr char value_separator = '\x1e';

std::string_view level_name(log_level level) {
  switch (level) {
    case log_level::debug:
      return "debug";
    case log_level::info:
      return "info";
    case log_level::warn:
      return "warn";
    case log_level::error:
      return "error";
  }
  return "info";
}

spdlog::level::level_enum to_spdlog(log_level level) {
  switch (level) {
    case log_level::debug:
      return spdlog::level::debug;
    case log_level::info:
      return spdlog::level::info;
    case log_level::warn:
      return spdlog::level::warn;
    case log_level::error:
      return spdlog::level::err;
  }
  return spdlog::level::info;
}

log_level from_spdlog(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
    case spdlog::level::debug:
      return log_level::debug;
    case spdlog::level::info:
      return log_level::info;
    case spdlog::level::warn:
      return log_level::warn;
    default:
      return log_level::error;
  }
}

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(c));
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

std::string utc_time(spdlog::log_clock::time_point time) {
  auto since_epoch = time.time_since_epoch();
  auto seconds = std::chrono::duration_cast<std::chrono::seconds>(since_epoch);
  auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch - seconds);
  std::time_t t = static_cast<std::time_t>(seconds.count());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buffer[96];  // large enough for any int fields, which -Wformat-truncation checks
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(millis.count()));
  return buffer;
}

struct decoded_record {
  std::string_view logger;
  std::string_view message;
  log_fields fields;
};

decoded_record decode(std::string_view payload) {
  decoded_record out;
  auto next = [&payload]() {
    auto at = payload.find(record_separator);
    std::string_view part = payload.substr(0, at);
    payload = at == std::string_view::npos ? std::string_view{} : payload.substr(at + 1);
    return part;
  };
  bool structured = payload.find(record_separator) != std::string_view::npos;
  if (!structured) {  // a plain spdlog call from elsewhere
    out.logger = "default";
    out.message = payload;
    return out;
  }
  out.logger = next();
  out.message = next();
  while (!payload.empty()) {
    std::string_view item = next();
    auto split = item.find(value_separator);
    out.fields.push_back(
        {std::string(item.substr(0, split)),
         split == std::string_view::npos ? std::string() : std::string(item.substr(split + 1))});
  }
  return out;
}

class line_sink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  line_sink(std::FILE* file, bool owned, bool json) : file_(file), owned_(owned), json_(json) {}
  ~line_sink() override {
    if (owned_) std::fclose(file_);
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    auto record = decode(std::string_view(msg.payload.data(), msg.payload.size()));
    std::string time = utc_time(msg.time);
    log_level level = from_spdlog(msg.level);
    std::string line =
        json_ ? format_json_line(time, level, record.logger, record.message, record.fields)
              : format_text_line(time, level, record.logger, record.message, record.fields);
    line = redact_registered(line);
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), file_);
    // Flushed per line: a crash must not lose the last lines, and tests read the pipe live.
    std::fflush(file_);
  }
  void flush_() override { std::fflush(file_); }

 private:
  std::FILE* file_;
  bool owned_;
  bool json_;
};

std::mutex logger_mutex;

std::shared_ptr<spdlog::logger> make_default_logger() {
  auto sink = std::make_shared<line_sink>(stdout, false, !::isatty(STDOUT_FILENO));
  auto l = std::make_shared<spdlog::logger>("kp", sink);
  l->set_level(spdlog::level::info);
  return l;
}

std::shared_ptr<spdlog::logger>& current_logger() {
  static std::shared_ptr<spdlog::logger> l = make_default_logger();
  return l;
}

std::shared_ptr<spdlog::logger> get_logger() {
  std::lock_guard lock(logger_mutex);
  return current_logger();
}

}  // namespace

std::string format_json_line(std::string_view time, log_level level, std::string_view logger,
                             std::string_view message, const log_fields& fields) {
  std::string out = "{\"time\":";
  append_json_string(out, time);
  out += ",\"level\":";
  append_json_string(out, level_name(level));
  out += ",\"logger\":";
  append_json_string(out, logger);
  out += ",\"message\":";
  append_json_string(out, message);
  out += ",\"fields\":{";
  bool first = true;
  for (const auto& f : fields) {
    if (!first) out += ',';
    first = false;
    append_json_string(out, f.key);
    out += ':';
    append_json_string(out, f.value);
  }
  out += "}}";
  return out;
}

std::string format_text_line(std::string_view time, log_level level, std::string_view logger,
                             std::string_view message, const log_fields& fields) {
  std::string out(time);
  std::string upper(level_name(level));
  for (auto& c : upper) c = static_cast<char>(c - 'a' + 'A');
  upper.resize(5, ' ');
  out += " " + upper + " " + std::string(logger) + ": " + std::string(message);
  for (const auto& f : fields) {
    bool quote = f.value.empty() || f.value.find_first_of(" \"=") != std::string::npos;
    out += " " + f.key + "=";
    if (quote) {
      append_json_string(out, f.value);
    } else {
      out += f.value;
    }
  }
  return out;
}

status setup_logging(const log_options& options) {
  std::vector<spdlog::sink_ptr> sinks;
  for (const auto& path : options.output_paths) {
    if (path == "stdout" || path == "stderr") {
      bool is_out = path == "stdout";
      bool tty = ::isatty(is_out ? STDOUT_FILENO : STDERR_FILENO) != 0;
      sinks.push_back(std::make_shared<line_sink>(is_out ? stdout : stderr, false,
                                                  options.json.value_or(!tty)));
      continue;
    }
    std::FILE* file = std::fopen(path.c_str(), "a");
    if (file == nullptr) {
      return make_error("log_output", "log output path " + path + ": cannot open it (" +
                                          std::strerror(errno) + ")");
    }
    sinks.push_back(std::make_shared<line_sink>(file, true, options.json.value_or(true)));
  }
  auto l = std::make_shared<spdlog::logger>("kp", sinks.begin(), sinks.end());
  l->set_level(to_spdlog(options.level));
  std::lock_guard lock(logger_mutex);
  current_logger() = l;
  return {};
}

bool logger::enabled(log_level level) const {
  return get_logger()->should_log(to_spdlog(level));
}

void logger::log(log_level level, std::string_view message, const log_fields& fields) const {
  auto l = get_logger();
  if (!l->should_log(to_spdlog(level))) return;
  std::string payload = name_;
  payload += record_separator;
  payload += message;
  for (const auto& f : fields) {
    payload += record_separator;
    payload += f.key;
    payload += value_separator;
    payload += f.value;
  }
  l->log(to_spdlog(level), spdlog::string_view_t(payload.data(), payload.size()));
}

}  // namespace kp::obs
