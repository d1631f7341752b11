// The NoCloud ISO reader on any bytes: it never crashes, never reads outside the image, and
// what it returns is bounded by the image's size.
#include "core/cloudinit/nocloud_iso.hpp"
#include "test/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto files = kp::cloudinit::read_nocloud_iso(kp::fuzz::text_of(data, size));
  if (!files) return 0;
  std::size_t total = files->user_data.size() + files->meta_data.size();
  if (files->network_config) total += files->network_config->size();
  if (files->vendor_data) total += files->vendor_data->size();
  kp::fuzz::check(total <= size, "file contents fit in the image");
  return 0;
}
