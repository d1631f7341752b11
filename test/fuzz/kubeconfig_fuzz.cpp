// kubeconfig text from anywhere: parsing never crashes, and a file it names that cannot be a
// certificate (a directory, /dev/zero) is refused rather than read without end.
#include "protocol/kube/client_config.hpp"
#include "test/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The input's length chooses between the current context and a named one, so each input is
  // parsed once (the parse is most of the cost) and the corpus stays plain kubeconfig text.
  const std::string text(kp::fuzz::text_of(data, size));
  if (size % 2 == 1) {
    (void)kp::kube::parse_kubeconfig(text, "/nonexistent-kp-fuzz", "other");
  } else {
    (void)kp::kube::parse_kubeconfig(text, "/nonexistent-kp-fuzz");
  }
  return 0;
}
