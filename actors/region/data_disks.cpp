#include "actors/region/data_disks.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>

#include "actors/region/inventory.hpp"

namespace kp::actors::region {
namespace {

constexpr int last_scsi = 30;

// scsiN -> N; -1 for any other key.
int scsi_index(std::string_view key) {
  constexpr std::string_view prefix = "scsi";
  if (key.substr(0, prefix.size()) != prefix || key.size() == prefix.size()) return -1;
  int n = -1;
  auto digits = key.substr(prefix.size());
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc{} || end != digits.data() + digits.size()) return -1;
  return n;
}

// "local-lvm:base-9000-disk-0/vm-101-disk-0" -> "local-lvm"; "" for a volume without storage.
std::string storage_of(const std::string& volume) {
  auto colon = volume.find(':');
  return colon == std::string::npos ? "" : volume.substr(0, colon);
}

}  // namespace

result<std::map<std::string, proxmox::drive>> data_disk_drives(
    const proxmox::vm_config& base, const std::vector<protocol::data_disk>& disks) {
  std::map<std::string, proxmox::drive> out;
  if (disks.empty()) return out;
  int highest = -1;
  for (const auto& [key, d] : base.drives) highest = std::max(highest, scsi_index(key));
  std::string boot_storage;
  if (auto boot = boot_disk(base)) boot_storage = storage_of(base.drives.at(*boot).volume);
  int next = highest + 1;
  for (const auto& disk : disks) {
    if (next > last_scsi) {
      return make_error("invalid_request", "no scsi slot left for additional disk " +
                                               std::to_string(out.size() + 1) + " (scsi" +
                                               std::to_string(last_scsi) + " is the last)");
    }
    const auto& storage = disk.storage.empty() ? boot_storage : disk.storage;
    if (storage.empty()) {
      return make_error("invalid_request",
                        "additional disk " + std::to_string(out.size() + 1) +
                            " names no storage and the template has no boot disk to take it from");
    }
    proxmox::drive d;
    d.volume = storage + ":" + std::to_string(disk.size_gib);
    if (!disk.cache.empty()) d.options.emplace_back("cache", disk.cache);
    if (disk.discard) d.options.emplace_back("discard", "on");
    if (disk.iothread) d.options.emplace_back("iothread", "1");
    if (disk.ssd) d.options.emplace_back("ssd", "1");
    out["scsi" + std::to_string(next++)] = std::move(d);
  }
  return out;
}

}  // namespace kp::actors::region
