#include "observability/metrics_registry.hpp"

#include <sstream>

#include <prometheus/gauge.h>
#include <prometheus/text_serializer.h>

namespace kp::obs {

metrics_registry::metrics_registry() : registry_(std::make_shared<prometheus::Registry>()) {}

std::string metrics_registry::serialize() const {
  std::ostringstream out;
  prometheus::TextSerializer{}.Serialize(out, registry_->Collect());
  return out.str();
}

void register_build_info(prometheus::Registry& registry, const std::string& version,
                         const std::string& commit) {
#if defined(__x86_64__)
  const std::string arch = "amd64";
#elif defined(__aarch64__)
  const std::string arch = "arm64";
#else
  const std::string arch = "unknown";
#endif
  std::string compiler = "unknown";
#if defined(__clang__)
  compiler = "clang-" + std::to_string(__clang_major__) + "." + std::to_string(__clang_minor__);
#elif defined(__GNUC__)
  compiler = "gcc-" + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__);
#endif
  prometheus::BuildGauge()
      .Name("karpenter_build_info")
      .Help("A metric with a constant '1' value labeled by version from which karpenter was built.")
      .Register(registry)
      .Add({{"version", version}, {"goversion", compiler}, {"goarch", arch}, {"commit", commit}})
      .Set(1);
}

}  // namespace kp::obs
