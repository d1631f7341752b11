// The offering gauges: price and availability per offering, and the allocatable of offerings
// whose host overrides the type's capacity or overhead.
#include "actors/provisioning/offering_gauges.hpp"

#include <gtest/gtest.h>

#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <sstream>

namespace kp::actors::provisioning {
namespace {

std::string text(prometheus::Registry& registry) {
  std::ostringstream out;
  prometheus::TextSerializer{}.Serialize(out, registry.Collect());
  return out.str();
}

TEST(OfferingGauges, ShowTheAllocatableOfTheHostWithOverridesOnly) {
  prometheus::Registry registry;
  offering_gauges gauges(registry);
  std::vector<instance_types::instance_type> types{
      instance_types::vm_instance_type("s1.4VCPU-16GB", 4, 16LL << 30)};
  instance_types::offering_override o;
  o.capacity.set("hugepages-2Mi", model::quantity{2LL * 1024 * 1024 * 1024 * 1000,
                                                  model::quantity_format::binary_si});
  types[0].host_overrides["pve2"] = o;
  instance_types::build_offerings(
      types, {{"r1", "pve1", 64, 256LL << 30, true}, {"r1", "pve2", 64, 256LL << 30, true}});
  gauges.publish(types);
  const auto t = text(registry);
  EXPECT_NE(t.find("karpenter_cloudprovider_instance_type_offering_allocatable{capacity_type="
                   "\"on-demand\",instance_type=\"s1.4VCPU-16GB\",resource_type=\"hugepages-2Mi\","
                   "zone=\"pve2\"} 2147483648"),
            std::string::npos)
      << t;
  EXPECT_EQ(t.find("resource_type=\"cpu\",zone=\"pve1\""), std::string::npos) << t;
  EXPECT_NE(t.find("resource_type=\"cpu\",zone=\"pve2\"}"), std::string::npos) << t;
  // The override goes away: so do its series.
  types[0].host_overrides.clear();
  instance_types::build_offerings(
      types, {{"r1", "pve1", 64, 256LL << 30, true}, {"r1", "pve2", 64, 256LL << 30, true}});
  gauges.publish(types);
  EXPECT_EQ(text(registry).find("zone=\"pve2\"} 2147483648"), std::string::npos);
}

}  // namespace
}  // namespace kp::actors::provisioning
