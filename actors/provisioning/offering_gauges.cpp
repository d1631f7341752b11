#include "actors/provisioning/offering_gauges.hpp"

#include <algorithm>

#include "core/instance_types/offering_override.hpp"

namespace kp::actors::provisioning {

offering_gauges::offering_gauges(prometheus::Registry& registry)
    : price_(prometheus::BuildGauge()
                 .Name("karpenter_cloudprovider_instance_type_offering_price_estimate")
                 .Help("Estimated hourly price of an offering, as the scheduler compares it "
                       "(synthetic prices, NodeOverlays included).")
                 .Register(registry)),
      available_(prometheus::BuildGauge()
                     .Name("karpenter_cloudprovider_instance_type_offering_available")
                     .Help("Whether an offering can be launched now (1) or not (0), from the "
                           "hosts' free capacity.")
                     .Register(registry)),
      allocatable_(prometheus::BuildGauge()
                       .Name("karpenter_cloudprovider_instance_type_offering_allocatable")
                       .Help("Allocatable of a VM launched through an offering whose host "
                             "overrides the type's capacity or overhead (cpu in cores, others "
                             "in their units).")
                       .Register(registry)) {}

void offering_gauges::publish(const std::vector<instance_types::instance_type>& types) {
  // One price per series: with several regions holding a host of the same name, the lowest
  // price and any availability count.
  std::map<key, std::pair<double, bool>> now;
  std::map<allocatable_key, double> allocatable;
  for (const auto& t : types)
    for (const auto& o : t.offerings) {
      if (o.overrides) {
        const auto offered = instance_types::offering_allocatable(t, o);
        for (const auto& [resource, q] : offered.items())
          allocatable.try_emplace({t.name, o.capacity_type, o.zone, resource},
                                  static_cast<double>(q.milli) / 1000.0);
      }
      auto [it, fresh] =
          now.try_emplace(key{t.name, o.capacity_type, o.zone}, o.price, o.available);
      if (!fresh) {
        it->second.first = std::min(it->second.first, o.price);
        it->second.second = it->second.second || o.available;
      }
    }
  for (auto it = series_.begin(); it != series_.end();) {
    if (now.count(it->first)) {
      ++it;
      continue;
    }
    price_.Remove(it->second.first);
    available_.Remove(it->second.second);
    it = series_.erase(it);
  }
  for (const auto& [k, value] : now) {
    auto& s = series_[k];
    if (s.first == nullptr) {
      std::map<std::string, std::string> labels{{"instance_type", std::get<0>(k)},
                                                {"capacity_type", std::get<1>(k)},
                                                {"zone", std::get<2>(k)}};
      s.first = &price_.Add(labels);
      s.second = &available_.Add(labels);
    }
    s.first->Set(value.first);
    s.second->Set(value.second ? 1 : 0);
  }
  for (auto it = allocatable_series_.begin(); it != allocatable_series_.end();) {
    if (allocatable.count(it->first)) {
      ++it;
      continue;
    }
    allocatable_.Remove(it->second);
    it = allocatable_series_.erase(it);
  }
  for (const auto& [k, value] : allocatable) {
    auto& g = allocatable_series_[k];
    if (g == nullptr)
      g = &allocatable_.Add({{"instance_type", std::get<0>(k)},
                             {"capacity_type", std::get<1>(k)},
                             {"zone", std::get<2>(k)},
                             {"resource_type", std::get<3>(k)}});
    g->Set(value);
  }
}

}  // namespace kp::actors::provisioning
