// INSTANCE_TYPES_FILE from any text (config/instance_types_file, Boost.JSON): parsing never
// crashes, and the types it accepts survive the memory overhead and offerings the controller then
// applies.
#include "config/instance_types_file.hpp"
#include "test/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto types = kp::config::parse_instance_types_file(kp::fuzz::text_of(data, size));
  if (!types) return 0;
  kp::instance_types::apply_memory_overhead_percent(*types, 0.075);
  kp::instance_types::build_offerings(*types, {{"r", "pve1", 64, std::int64_t{256} << 30, true}});
  return 0;
}
