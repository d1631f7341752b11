#include "core/instance_types/offering_override.hpp"

#include <gtest/gtest.h>

namespace {

using namespace kp::instance_types;
using kp::model::quantity;
using kp::model::quantity_format;
constexpr std::int64_t Mi = 1024LL * 1024 * 1000;  // milli-units of one MiB
constexpr std::int64_t Gi = 1024 * Mi;

quantity binary(std::int64_t milli) {
  return quantity{milli, quantity_format::binary_si};
}

// s1.4VCPU-16GB on pve1 and pve2; pve2's VMs get 2Gi of 2Mi hugepages and 1Gi more
// kube-reserved memory.
std::vector<instance_type> with_pve2_override() {
  std::vector<instance_type> types{vm_instance_type("s1.4VCPU-16GB", 4, 16LL << 30)};
  offering_override o;
  o.capacity.set("hugepages-2Mi", binary(2 * Gi));
  overhead oh;
  oh.kube_reserved.set("memory", binary(1 * Gi + 384 * Mi));
  o.overhead = oh;
  types[0].host_overrides["pve2"] = o;
  build_offerings(types,
                  {{"r1", "pve1", 64, 256LL << 30, true}, {"r1", "pve2", 64, 256LL << 30, true}});
  return types;
}

TEST(OfferingOverrides, ChangeTheAllocatableOfThatHostsOfferingOnly) {
  auto types = with_pve2_override();
  const auto& t = types[0];
  ASSERT_EQ(t.offerings.size(), 2u);
  EXPECT_FALSE(t.offerings[0].overrides.has_value());
  ASSERT_TRUE(t.offerings[1].overrides.has_value());
  const auto base = t.allocatable();
  EXPECT_EQ(offering_allocatable(t, t.offerings[0]), base) << "pve1 offers the type as it is";
  const auto pve2 = offering_allocatable(t, t.offerings[1]);
  // Memory: 1Gi more kube-reserved and 2Gi of hugepages less than the base.
  EXPECT_EQ(pve2.milli("memory"), base.milli("memory") - 1 * Gi - 2 * Gi);
  EXPECT_EQ(pve2.milli("hugepages-2Mi"), 2 * Gi);
  EXPECT_EQ(pve2.milli("cpu"), base.milli("cpu")) << "kube-reserved cpu is kept";
  EXPECT_FALSE(base.has("hugepages-2Mi"));
}

TEST(OfferingOverrides, TheLargestAllocatableTakesEachResourceFromTheHostWithMost) {
  auto types = with_pve2_override();
  const auto& t = types[0];
  auto largest = largest_allocatable(t);
  EXPECT_EQ(largest.milli("memory"), t.allocatable().milli("memory"));
  EXPECT_EQ(largest.milli("hugepages-2Mi"), 2 * Gi);
  EXPECT_TRUE(has_overrides(t));
  types[0].offerings[1].available = false;  // pve2 full: only pve1's offering counts
  EXPECT_FALSE(has_overrides(types[0]));
  EXPECT_EQ(largest_allocatable(types[0]), types[0].allocatable());
}

TEST(OfferingOverrides, DeclaredTypesKeepTheirHostOverridesAndRefuseAnEmptyHost) {
  declared_instance_type d;
  d.name = "x1.a";
  d.capacity.set("cpu", quantity::from_units(2));
  d.capacity.set("memory", binary(4 * Gi));
  d.host_overrides["pve2"].capacity.set("hugepages-1Gi", binary(1 * Gi));
  auto r = from_declared({d});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)[0].host_overrides.count("pve2"), 1u);
  d.host_overrides[""] = {};
  r = from_declared({d});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("instance type x1.a hosts has an empty host name"),
            std::string::npos);
}

}  // namespace
