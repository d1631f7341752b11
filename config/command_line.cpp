#include "config/command_line.hpp"

#include <cstdlib>
#include <utility>

#include "config/setting_table.hpp"
#include "config/value_parsers.hpp"

namespace kp::config {
namespace {

struct given_flag {
  const setting_spec* spec;
  std::string value;
  std::string spelling;  // as typed, for the error message: "-metrics-port"
};

error flag_error(const std::string& spelling, const error& cause) {
  return make_error(cause.code, "flag " + spelling + ": " + cause.message);
}

}  // namespace

status check_settings(const settings& s) {
  if (s.metrics_port != 0 && s.metrics_port == s.health_probe_port) {
    return make_error("port_conflict", "METRICS_PORT and HEALTH_PROBE_PORT are both " +
                                           std::to_string(s.metrics_port) + ": they must differ");
  }
  return {};
}

environment process_environment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
  };
}

result<command_line> parse_command_line(const std::vector<std::string>& args,
                                        const environment& env) {
  command_line out;
  std::vector<given_flag> given;
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 2 || arg[0] != '-') break;  // first non-flag (or "-") ends the flags
    std::size_t dashes = arg[1] == '-' ? 2 : 1;
    if (dashes == 2 && arg.size() == 2) {  // "--"
      ++i;
      break;
    }
    std::string body = arg.substr(dashes);
    if (body.empty() || body[0] == '-' || body[0] == '=') {
      return make_error("bad_flag", "bad flag syntax: " + arg);
    }
    std::string name = body;
    std::optional<std::string> value;
    if (auto equals = body.find('='); equals != std::string::npos) {
      name = body.substr(0, equals);
      value = body.substr(equals + 1);
    }
    std::string spelling = std::string(dashes, '-') + name;

    if (name == "h" || name == "help" || name == "version" || name == "settings-markdown") {
      bool on = true;
      if (value) {
        auto parsed = parse_bool(*value);
        if (!parsed) return flag_error(spelling, parsed.error());
        on = *parsed;
      }
      if (name == "version") {
        out.version = on;
      } else if (name == "settings-markdown") {
        out.settings_markdown = on;
      } else {
        out.help = on;
      }
      continue;
    }
    const setting_spec* spec = find_setting(name);
    if (spec == nullptr) {
      return make_error("unknown_flag", "flag provided but not defined: " + spelling +
                                            " (see --help for the settings)");
    }
    if (!value) {
      if (spec->is_bool) {
        value = "true";
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return make_error("missing_value",
                          "flag needs an argument: " + spelling + " (" + spec->type + ")");
      }
    }
    given.push_back({spec, *value, spelling});
  }
  out.arguments.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());

  // Environment for every setting not given as a flag, so a flag can override a bad variable.
  for (const auto& spec : setting_table()) {
    bool overridden = false;
    for (const auto& flag : given) overridden = overridden || flag.spec == &spec;
    if (overridden || spec.env.empty()) continue;
    auto text = env(spec.env);
    if (!text) continue;
    if (auto applied = spec.apply(out.values, *text); !applied) {
      return make_error(applied.error().code,
                        "environment variable " + spec.env + ": " + applied.error().message);
    }
  }
  for (const auto& flag : given) {
    if (auto applied = flag.spec->apply(out.values, flag.value); !applied) {
      return flag_error(flag.spelling, applied.error());
    }
  }
  if (auto consistent = check_settings(out.values); !consistent) return consistent.error();
  return out;
}

}  // namespace kp::config
