#include "actors/termination/provider_id.hpp"

#include <charconv>

namespace kp::actors::termination {

std::optional<proxmox_provider_id> parse_provider_id(std::string_view text) {
  constexpr std::string_view scheme = "proxmox://";
  if (text.substr(0, scheme.size()) != scheme) return std::nullopt;
  text.remove_prefix(scheme.size());
  auto slash = text.rfind('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 >= text.size()) {
    return std::nullopt;
  }
  auto digits = text.substr(slash + 1);
  std::uint32_t vmid = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), vmid);
  if (ec != std::errc{} || end != digits.data() + digits.size() || vmid == 0) return std::nullopt;
  return proxmox_provider_id{std::string(text.substr(0, slash)), vmid};
}

}  // namespace kp::actors::termination
