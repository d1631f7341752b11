#pragma once
// Human-readable listings of every setting, rendered from the setting table: the --help text and
// the Markdown tables of docs/settings.md.
#include <string>

namespace kp::config {

// The full --help text for `program`.
std::string render_help(const std::string& program);

// The generated part of docs/settings.md: one Markdown table per group.
std::string render_settings_markdown();

}  // namespace kp::config
