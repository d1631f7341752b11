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
      out.push_back(series_of(*entry.pod));
      if (out.size() >= batch_size) {
        flush(out);
        out.clear();
      }
    }
    if (!out.empty()) flush(out);
  }

  // Resumes at the pod after the last one handed out; holds the source, and so its maps.
  class resuming_cursor final : public obs::object_gauges::source::cursor {
   public:
    explicit resuming_cursor(std::shared_ptr<const pods_state> s) : source_(std::move(s)) {
      if (source_->pods_) at_ = source_->pods_->begin();
    }
    bool next(std::size_t batch_size, std::vector<prometheus::ClientMetric>& out) override {
      const auto& pods = source_->pods_;
      if (!pods || at_ == pods->end()) return false;
      for (; at_ != pods->end() && out.size() < batch_size; ++at_)
        out.push_back(source_->series_of(*at_->second.pod));
      return true;
    }

   private:
    std::shared_ptr<const pods_state> source_;
    protocol::pod_model_map::const_iterator at_;
  };

  std::unique_ptr<obs::object_gauges::source::cursor> open(
      std::shared_ptr<const obs::object_gauges::source> self) const override {
    return std::make_unique<resuming_cursor>(
        std::static_pointer_cast<const pods_state>(std::move(self)));
  }

 private:
  prometheus::ClientMetric series_of(const model::pod& pod) const {
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
    return m;
  }

  protocol::shared_pod_models pods_;
  protocol::shared_objects<kube::node> nodes_;
};

}  // namespace

std::shared_ptr<const obs::object_gauges::source> pod_state_series(
    protocol::shared_pod_models pods, protocol::shared_objects<kube::node> nodes) {
  return std::make_shared<const pods_state>(std::move(pods), std::move(nodes));
}

}  // namespace kp::actors::cluster_state
