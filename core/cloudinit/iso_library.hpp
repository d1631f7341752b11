#pragma once
// libisofs' process-wide set-up, done once. iso_init/iso_finish are global and not
// reference-counted, so every user in this folder goes through ensure_iso_library() instead of
// calling them: the first call runs iso_init (and silences libisofs' own stderr messages, since
// every failure is returned as an error value), and iso_finish runs at process exit (std::atexit).
// Internal to core/cloudinit; other folders use nocloud_iso.hpp.
#include "core/result.hpp"

namespace kp::cloudinit {

// Thread-safe; cheap after the first call. Fails with "iso_error" if libisofs cannot start
// (then every later call fails the same way).
status ensure_iso_library();

}  // namespace kp::cloudinit
