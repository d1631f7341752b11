#pragma once
// Reads settings from the command line and the environment, as Karpenter does: flags win over
// environment variables, which win over the defaults. Flags follow Go's flag package: one dash or
// two, "-x=v" or "-x v", booleans "-x" or "-x=false", parsing stops at the first non-flag
// argument or "--".
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/settings.hpp"
#include "core/result.hpp"

namespace kp::config {

struct command_line {
  settings values;
  bool help = false;                   // -h, -help, --help
  bool version = false;                // -version, --version
  bool settings_markdown = false;      // --settings-markdown: the docs/settings.md table
  std::vector<std::string> arguments;  // what follows the flags: a subcommand and its arguments
};

// Looks up one environment variable; nullopt when unset.
using environment = std::function<std::optional<std::string>(std::string_view name)>;

// The process environment; an empty value counts as unset (charts often render empty strings).
environment process_environment();

// Rules across settings (each value alone was already checked), e.g. distinct ports.
status check_settings(const settings& values);

// `args` excludes the program name. Errors are one line naming the flag or variable, the value
// and what is allowed.
result<command_line> parse_command_line(const std::vector<std::string>& args,
                                        const environment& env);

}  // namespace kp::config
