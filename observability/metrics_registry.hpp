#pragma once
// The process's Prometheus registry and its text exposition, served by our own HTTP transport
// (not prometheus-cpp's civetweb exposer).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <prometheus/registry.h>

#include "observability/object_gauges.hpp"

namespace kp::obs {

class metrics_registry {
 public:
  metrics_registry();

  prometheus::Registry& registry() { return *registry_; }
  // Families with one series per object (karpenter_pods_state holds a series per pod): kept
  // apart, so a scrape that names other families never collects them.
  prometheus::Registry& per_object_registry() { return *per_object_; }
  // A per-object family whose series are made when collected, served with the per-object
  // registry (and collected only when asked for). Call before serving.
  void add_per_object(std::shared_ptr<const object_gauges> family);
  // The text format 0.0.4 of every family, as /metrics returns it.
  std::string serialize() const;
  // Only the families named (exact names); the per-object registry is collected only when a
  // name is not found in the main one. Every family when `names` is empty.
  std::string serialize(const std::vector<std::string>& names) const;
  // The same text in pieces, as /metrics sends it: the registries' families first, then each
  // per-object family a batch of series at a time (object_gauges::text_pieces), and an empty
  // string at the end. A scrape of 100,000 pod series thus never holds their whole text.
  std::function<std::string()> text_pieces(const std::vector<std::string>& names) const;

 private:
  struct selection {
    std::string text;                                            // the registries' families named
    std::vector<std::shared_ptr<const object_gauges>> streamed;  // the per-object ones named
  };
  selection select(const std::vector<std::string>& names) const;

  std::shared_ptr<prometheus::Registry> registry_;
  std::shared_ptr<prometheus::Registry> per_object_;
  std::vector<std::shared_ptr<const object_gauges>> per_object_extra_;
};

// karpenter_build_info{version,goversion,goarch,commit} = 1, as Karpenter exports it; goversion
// carries the C++ compiler instead.
void register_build_info(prometheus::Registry& registry, const std::string& version,
                         const std::string& commit = "");

inline constexpr const char* metrics_content_type = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace kp::obs
