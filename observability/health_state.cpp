#include "observability/health_state.hpp"

#include <prometheus/gauge.h>
#include <prometheus/registry.h>

namespace kp::obs {

health_state::health_state(prometheus::Registry* registry) {
  if (registry != nullptr) {
    gauges_ = &prometheus::BuildGauge()
                   .Name("karpenter_proxmox_readiness")
                   .Help("Readiness of each dependency of the controller: 1 ready, 0 not ready.")
                   .Register(*registry);
  }
}

void health_state::set_condition(const std::string& component, bool ready,
                                 const std::string& detail) {
  std::lock_guard lock(mutex_);
  conditions_[component] = condition{ready, detail};
  if (gauges_ != nullptr) gauges_->Add({{"component", component}}).Set(ready ? 1 : 0);
}

void health_state::remove_condition(const std::string& component) {
  std::lock_guard lock(mutex_);
  conditions_.erase(component);
  if (gauges_ != nullptr) {
    auto& gauge = gauges_->Add({{"component", component}});
    gauges_->Remove(&gauge);
  }
}

void health_state::set_live(bool live, const std::string& detail) {
  std::lock_guard lock(mutex_);
  live_ = live;
  live_detail_ = detail;
}

probe_report health_state::readiness() const {
  std::lock_guard lock(mutex_);
  std::string missing;
  for (const auto& [component, c] : conditions_) {
    if (c.ready) continue;
    if (!missing.empty()) missing += "; ";
    missing += component + ": " + (c.detail.empty() ? std::string("not ready") : c.detail);
  }
  if (conditions_.empty()) return {false, "starting: no readiness reported yet"};
  if (missing.empty()) return {true, "ok"};
  return {false, missing};
}

probe_report health_state::liveness() const {
  std::lock_guard lock(mutex_);
  if (live_) return {true, "ok"};
  return {false, live_detail_.empty() ? std::string("not live") : live_detail_};
}

}  // namespace kp::obs
