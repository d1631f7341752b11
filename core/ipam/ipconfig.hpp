#pragma once
// A Proxmox cloud-init `ipconfigN` value: "ip=10.0.0.5/24,gw=10.0.0.1,ip6=auto,gw6=fd00::1".
// ip is a CIDR or "dhcp"; ip6 a CIDR, "dhcp" or "auto" (SLAAC); every key is optional.
#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace kp::ipam {

struct ipconfig {
  std::optional<std::string> ip;
  std::optional<std::string> gw;
  std::optional<std::string> ip6;
  std::optional<std::string> gw6;
  friend bool operator==(const ipconfig&, const ipconfig&) = default;
};

// Errors ("invalid_ipconfig") name the text and the key: unknown keys, a key twice, an ip that
// is neither dhcp nor an IPv4 CIDR, a gateway that is not an address.
result<ipconfig> parse_ipconfig(std::string_view text);

// ip, gw, ip6, gw6 in that order, as Proxmox writes them; absent keys are left out.
std::string render_ipconfig(const ipconfig& config);

}  // namespace kp::ipam
