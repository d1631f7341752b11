#pragma once
// The providerID of our VMs, a contract with Kubernetes, the Go provider and Proxmox CCM
// (DESIGN.md section 7): proxmox://<region>/<vmid>. One parser and one formatter for every actor.
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kp::protocol {

struct proxmox_provider_id {
  std::string region;
  std::uint32_t vmid = 0;
  friend bool operator==(const proxmox_provider_id&, const proxmox_provider_id&) = default;
};

inline std::string format_provider_id(const std::string& region, std::uint32_t vmid) {
  return "proxmox://" + region + "/" + std::to_string(vmid);
}

// Nothing for another provider's ID, a missing region, or a VMID that is not a positive number.
inline std::optional<proxmox_provider_id> parse_provider_id(std::string_view text) {
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

}  // namespace kp::protocol
