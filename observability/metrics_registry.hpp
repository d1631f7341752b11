#pragma once
// The process's Prometheus registry and its text exposition, served by our own HTTP transport
// (not prometheus-cpp's civetweb exposer).
#include <memory>
#include <string>

#include <prometheus/registry.h>

namespace kp::obs {

class metrics_registry {
 public:
  metrics_registry();

  prometheus::Registry& registry() { return *registry_; }
  // The text format 0.0.4 of every family, as /metrics returns it.
  std::string serialize() const;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
};

// karpenter_build_info{version,goversion,goarch,commit} = 1, as Karpenter exports it; goversion
// carries the C++ compiler instead.
void register_build_info(prometheus::Registry& registry, const std::string& version,
                         const std::string& commit = "");

inline constexpr const char* metrics_content_type = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace kp::obs
