#pragma once
// The file name of a VM's NoCloud ISO carries this cluster's mark, because Proxmox cannot show
// what is inside an ISO: `kp-<tag>-<vmid>-<nodeclaim>.iso`, where <tag> is 8 hex digits of a
// hash of CLUSTER_NAME. The leftover sweep deletes only files with this cluster's tag, and the
// release of a VM's ISO only one naming that VM and NodeClaim. Pure text functions.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kp::ownership {

// The 8 hex digits that stand for a cluster in file names.
std::string cluster_tag(std::string_view cluster_name);

std::string iso_file_name(std::string_view cluster_name, std::uint32_t vmid,
                          std::string_view nodeclaim);

struct iso_name {
  std::string cluster_tag;
  std::uint32_t vmid = 0;
  std::string nodeclaim;
  friend bool operator==(const iso_name&, const iso_name&) = default;
};

// A file name or a volume id (`local:iso/<file>`) in our format; nothing for any other name
// (another cluster's is parsed too: compare cluster_tag).
std::optional<iso_name> parse_iso_name(std::string_view name);

// Whether `volid` is the ISO this cluster made for `vmid` and `nodeclaim`, or the name an
// earlier version gave it (`user-data-<vmid>.iso`, kept for upgrades: only ever called for a VM
// whose ownership mark was checked).
bool is_our_iso(std::string_view volid, std::string_view cluster_name, std::uint32_t vmid,
                std::string_view nodeclaim);

}  // namespace kp::ownership
