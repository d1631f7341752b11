#pragma once
// The one trim: ASCII white space (space, tab, CR, LF, FF, VT) off both ends, as std::isspace
// in the C locale sees it. Outside text (settings, files, API values, property strings) is
// trimmed through here.
#include <string_view>

namespace kp::text {

constexpr bool ascii_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

constexpr std::string_view trim(std::string_view s) {
  while (!s.empty() && ascii_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && ascii_space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace kp::text
