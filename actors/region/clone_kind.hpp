#pragma once
// Which kind of clone a launch makes, as a pure function of the node class's cloneMode, the
// source VM and the storage its boot disk is on.
#include <string>

#include "core/result.hpp"

namespace kp::actors::region {

// Whether a storage can hold a linked clone of `volume` (the template's boot disk): thin
// storages (lvmthin, zfspool, rbd, btrfs) can; file storages (dir, nfs, cifs, glusterfs,
// cephfs) only for qcow2 images; plain lvm, iSCSI and the rest cannot. An unknown type ("": not
// listed yet) is taken to support it, as Proxmox will say so at the clone if it does not.
bool supports_linked_clone(const std::string& storage_type, const std::string& volume);

// true: a full copy (`full=1`); false: a linked clone. cloneMode "full" is full; "linked" or
// none is linked when the source is a template whose disk's storage supports it, and none
// falls back to full otherwise. An explicit "linked" that cannot be made is an error
// ("invalid_request") naming the storage, rather than a slower clone the user did not ask for.
result<bool> full_clone(const std::string& clone_mode, bool source_is_template,
                        const std::string& storage_type, const std::string& boot_volume);

}  // namespace kp::actors::region
