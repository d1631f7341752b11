#include "core/cloudinit/iso_library.hpp"

#include <cstdlib>
#include <mutex>
#include <string>

#ifndef LIBISOFS_WITHOUT_LIBBURN
#define LIBISOFS_WITHOUT_LIBBURN  // struct burn_source must be complete in C++
#endif
#include <libisofs/libisofs.h>

namespace kp::cloudinit {

namespace {

std::once_flag init_once;
int init_code = 0;

void finish_at_exit() {
  iso_finish();
}

void init_library() {
  init_code = iso_init();
  if (init_code < 0) return;
  // Malformed images are expected input for the reader (a guest with a broken CD-ROM); their
  // reasons come back as error values, so libisofs must not also print to stderr.
  char never_queue[] = "NEVER";
  char never_print[] = "NEVER";
  char prefix[] = "libisofs: ";
  iso_set_msgs_severities(never_queue, never_print, prefix);
  std::atexit(finish_at_exit);
}

}  // namespace

status ensure_iso_library() {
  std::call_once(init_once, init_library);
  if (init_code < 0) {
    return make_error("iso_error",
                      std::string("libisofs failed to initialise: ") + iso_error_to_msg(init_code));
  }
  return {};
}

}  // namespace kp::cloudinit
