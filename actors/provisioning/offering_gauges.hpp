#pragma once
// karpenter_cloudprovider_instance_type_offering_price_estimate and
// karpenter_cloudprovider_instance_type_offering_available (the names Karpenter's AWS provider
// exports and dashboards query): one series per instance type, capacity type and zone (Proxmox
// host) of the offerings the last provisioning batch saw, with the regions' capacity and the
// NodeOverlays applied. Offerings with per-host capacity or overhead overrides also export
// karpenter_cloudprovider_instance_type_offering_allocatable{resource_type}: what a VM launched
// there really offers. Series of offerings that went away are removed. Used by one actor only.
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include "core/instance_types/instance_type.hpp"

namespace kp::actors::provisioning {

class offering_gauges {
 public:
  explicit offering_gauges(prometheus::Registry& registry);
  void publish(const std::vector<instance_types::instance_type>& types);

 private:
  using key = std::tuple<std::string, std::string, std::string>;  // type, capacity type, zone
  prometheus::Family<prometheus::Gauge>& price_;
  prometheus::Family<prometheus::Gauge>& available_;
  std::map<key, std::pair<prometheus::Gauge*, prometheus::Gauge*>> series_;
  // type, capacity type, zone, resource
  using allocatable_key = std::tuple<std::string, std::string, std::string, std::string>;
  prometheus::Family<prometheus::Gauge>& allocatable_;
  std::map<allocatable_key, prometheus::Gauge*> allocatable_series_;
};

}  // namespace kp::actors::provisioning
