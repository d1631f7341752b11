// kubeconfig text from anywhere: parsing never crashes, and a file it names that cannot be a
// certificate (a directory, /dev/zero) is refused rather than read without end.
#include "protocol/kube/client_config.hpp"
#include "test/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(kp::fuzz::text_of(data, size));
  (void)kp::kube::parse_kubeconfig(text, "/nonexistent-kp-fuzz");
  (void)kp::kube::parse_kubeconfig(text, "/nonexistent-kp-fuzz", "other");
  return 0;
}
