// NODE_SETTING_FILE from any text: parsing never crashes, and an error names the file.
#include "config/node_settings_file.hpp"
#include "test/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto parsed = kp::config::parse_node_settings(kp::fuzz::text_of(data, size), "fuzz.yaml");
  if (!parsed) kp::fuzz::check(!parsed.error().message.empty(), "a refusal says why");
  return 0;
}
