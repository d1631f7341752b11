#pragma once
// Text handling shared by the description marks: a mark line's parts are trimmed of spaces, tabs
// and the carriage return a Windows-edited description leaves.
#include <string_view>

namespace kp::ownership {

inline std::string_view trim_mark_text(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace kp::ownership
