#pragma once
// The NoCloud cloud-init data source as an ISO9660 image: volume id `cidata`, Rock Ridge and
// Joliet names, files user-data, meta-data and optionally network-config and vendor-data.
// The product writes it (and uploads it to a Proxmox ISO storage); simulated guests read it back
// from the bytes of their CD-ROM, so both sides share this one format.
//
// The writer uses libisofs, which is process-global (iso_init/iso_finish are not
// reference-counted): it calls iso_init once per process on first use (std::call_once) and
// registers iso_finish with std::atexit, so callers never touch libisofs themselves. Do not call
// iso_init/iso_finish elsewhere in a process that uses this file. The reader is our own bounded
// ISO9660 parser and needs no library. Both functions are safe to call from many threads.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace kp::cloudinit {

struct nocloud_files {
  std::string user_data;
  std::string meta_data;
  std::optional<std::string> network_config;
  std::optional<std::string> vendor_data;

  friend bool operator==(const nocloud_files&, const nocloud_files&) = default;
};

struct iso_write_options {
  // When set, every timestamp in the image (files, directories, volume descriptor) is this Unix
  // time in UTC, so the same files always give byte-identical images (content-addressed names,
  // cache hits, reproducible tests). When unset, the current time is recorded as usual.
  std::optional<std::int64_t> fixed_timestamp;
  // Upper bound for the content (sum of all files); larger inputs are refused, not written.
  std::size_t max_content_bytes = 16u << 20;
};

// Builds the image fully in memory. Errors: "invalid_argument" (empty meta-data is allowed,
// content too large), "iso_error" (libisofs refused; the message carries its reason).
result<std::string> write_nocloud_iso(const nocloud_files& files,
                                      const iso_write_options& options = {});

// Reads an image from memory. The volume id must be `cidata` (any case, as cloud-init accepts)
// and user-data and meta-data must be present. Errors: "invalid_iso" (not a readable ISO9660
// image, truncated, garbage), "not_nocloud" (wrong volume id), "missing_file" (no user-data or
// meta-data). Never crashes on hostile input; file sizes are bounded by the image size.
result<nocloud_files> read_nocloud_iso(std::string_view image);

// The volume id of the NoCloud data source.
inline constexpr std::string_view nocloud_volume_id = "cidata";

}  // namespace kp::cloudinit
