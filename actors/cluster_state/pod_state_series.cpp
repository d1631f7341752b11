#include "actors/cluster_state/pod_state_series.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace kp::actors::cluster_state {
namespace {

constexpr const char* nodepool_label = "karpenter.sh/nodepool";
constexpr const char* zone_label = "topology.kubernetes.io/zone";

class pods_state final : public obs::object_gauges::source {
 public:
  pods_state(protocol::shared_pod_models pods, protocol::shared_objects<kube::node> nodes)
      : pods_(std::move(pods)), nodes_(std::move(nodes)) {}

  std::size_t size() const override { return pods_ ? pods_->size() : 0; }

  void collect(std::size_t batch_size, const obs::object_gauges::batch_sink& flush) const override {
    if (!pods_) return;
    std::vector<prometheus::ClientMetric> out;
    out.reserve(std::min(batch_size, pods_->size()));
    for (const auto& [key, entry] : *pods_) {
      const auto& pod = *entry.pod;
      std::string nodepool, zone;
      const auto& node_name = pod.node_name;
      if (!node_name.empty())
        if (const auto* node = protocol::cluster_snapshot::find(nodes_, node_name)) {
          const auto& labels = node->metadata.labels;
          if (auto l = labels.find(nodepool_label); l != labels.end()) nodepool = l->second;
          if (auto l = labels.find(zone_label); l != labels.end()) zone = l->second;
        }
      prometheus::ClientMetric m;
      // In name order, as prometheus-cpp's own families emit them.
      m.label = {{"name", pod.name},       {"namespace", pod.namespace_},
                 {"node", node_name},      {"nodepool", std::move(nodepool)},
                 {"phase", pod.phase},     {"scheduled", node_name.empty() ? "false" : "true"},
                 {"zone", std::move(zone)}};
      m.gauge.value = 1;
      out.push_back(std::move(m));
      if (out.size() >= batch_size) {
        flush(out);
        out.clear();
      }
    }
    if (!out.empty()) flush(out);
  }

 private:
  protocol::shared_pod_models pods_;
  protocol::shared_objects<kube::node> nodes_;
};

}  // namespace

std::shared_ptr<const obs::object_gauges::source> pod_state_series(
    protocol::shared_pod_models pods, protocol::shared_objects<kube::node> nodes) {
  return std::make_shared<const pods_state>(std::move(pods), std::move(nodes));
}

}  // namespace kp::actors::cluster_state
