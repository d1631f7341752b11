#pragma once
// Numbers read from request parameters, config values and topology text (std::from_chars: no
// exceptions, no locale, and the whole text must be the number), and the hex Proxmox writes.
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace kp::sim::pve {

// An integer or floating-point number spelled out by the whole of `text` (a leading '+' is
// allowed, as Perl's number checks allow it); nullopt when it is not one or does not fit T.
template <class T>
std::optional<T> parse_number(std::string_view text) {
  if (text.size() > 1 && text.front() == '+' && text[1] != '-') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  T value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// At least 8 upper-case hex digits, as UPIDs and ticket times spell numbers.
inline std::string upper_hex8(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%08llX", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace kp::sim::pve
