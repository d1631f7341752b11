#pragma once
// providerIDs of our VMs: proxmox://<region>/<vmid>. Shared by termination (which region to ask
// to delete a VM) and the garbage collector (which region's listing decides a NodeClaim's fate).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kp::actors::termination {

struct proxmox_provider_id {
  std::string region;
  std::uint32_t vmid = 0;
  friend bool operator==(const proxmox_provider_id&, const proxmox_provider_id&) = default;
};

// Nothing for another provider's ID, a missing region, or a VMID that is not a positive number.
std::optional<proxmox_provider_id> parse_provider_id(std::string_view text);

}  // namespace kp::actors::termination
