#include "actors/region/clone_kind.hpp"

#include <set>
#include <string_view>

namespace kp::actors::region {

bool supports_linked_clone(const std::string& storage_type, const std::string& volume) {
  static const std::set<std::string, std::less<>> thin = {"lvmthin", "zfspool", "rbd", "btrfs"};
  static const std::set<std::string, std::less<>> files = {"dir", "nfs", "cifs", "glusterfs",
                                                           "cephfs"};
  if (storage_type.empty()) return true;
  if (thin.count(storage_type) != 0) return true;
  if (files.count(storage_type) != 0) {
    constexpr std::string_view qcow2 = ".qcow2";
    return volume.size() >= qcow2.size() &&
           volume.compare(volume.size() - qcow2.size(), qcow2.size(), qcow2) == 0;
  }
  return false;
}

result<bool> full_clone(const std::string& clone_mode, bool source_is_template,
                        const std::string& storage_type, const std::string& boot_volume) {
  if (clone_mode == "full") return true;
  const bool linked = source_is_template && supports_linked_clone(storage_type, boot_volume);
  if (clone_mode == "linked" && !linked) {
    return make_error("invalid_request",
                      "cloneMode linked: " +
                          (source_is_template ? "storage type " + storage_type + " of " +
                                                    boot_volume + " cannot hold linked clones"
                                              : std::string("the source VM is not a template")) +
                          "; use cloneMode full");
  }
  return !linked;
}

}  // namespace kp::actors::region
