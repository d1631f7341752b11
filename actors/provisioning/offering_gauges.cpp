#include "actors/provisioning/offering_gauges.hpp"

#include <algorithm>

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
                     .Register(registry)) {}

void offering_gauges::publish(const std::vector<instance_types::instance_type>& types) {
  // One price per series: with several regions holding a host of the same name, the lowest
  // price and any availability count.
  std::map<key, std::pair<double, bool>> now;
  for (const auto& t : types)
    for (const auto& o : t.offerings) {
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
}

}  // namespace kp::actors::provisioning
