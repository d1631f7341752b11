#pragma once
// Proxmox task identifiers (UPIDs): `UPID:node:pid:pstart:starttime:type:id:user:` with the
// numbers in hex. The node in a UPID is where the task runs, hence where to poll its status.
#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace kp::proxmox {

struct upid {
  std::string node;
  std::uint32_t pid = 0;
  std::uint64_t pstart = 0;     // 8 or 9 hex digits
  std::uint32_t starttime = 0;  // Unix seconds
  std::string type;             // qmclone, qmstart, qmdestroy, imgcopy, ...
  std::string id;               // usually the VMID; may be empty
  std::string user;             // user@realm or user@realm!tokenid
  std::string text;             // the whole UPID as received

  friend bool operator==(const upid&, const upid&) = default;
};

// Strict parse following Proxmox's own decoder; "invalid_upid" otherwise.
result<upid> parse_upid(std::string_view text);

}  // namespace kp::proxmox
