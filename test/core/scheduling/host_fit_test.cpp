#include "core/scheduling/host_fit.hpp"

#include <gtest/gtest.h>

#include "fixtures.hpp"

namespace kp::scheduling::test {
namespace {

namespace L = model::labels;

// Only s1.4VCPU-16GB, on z1 and z2; z2's VMs reserve 8Gi more memory.
snapshot overridden_snapshot() {
  snapshot s;
  std::vector<instance_types::instance_type> types{
      instance_types::vm_instance_type("s1.4VCPU-16GB", 4, 16LL << 30)};
  instance_types::offering_override o;
  instance_types::overhead oh;
  oh.kube_reserved.set("memory", mib(8 * 1024));
  o.overhead = oh;
  types[0].host_overrides["z2"] = o;
  instance_types::build_offerings(
      types, {{"region1", "z1", 64, 512LL << 30, true}, {"region1", "z2", 64, 512LL << 30, true}});
  s.instance_types = std::move(types);
  s.nodepools.push_back(make_pool("default"));
  return s;
}

TEST(HostOverrides, ANodeClaimThatFitsOnlyTheHostWithoutTheOverrideIsKeptToIt) {
  auto s = overridden_snapshot();
  s.pods = {make_pod("big", 1000, 12 * 1024)};  // 12Gi: fits z1 (~15Gi), not z2 (~7Gi)
  auto p = provision(s);
  keep_to_fitting_hosts(p, s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(req_values(p.nodeclaims[0], L::zone), std::vector<std::string>{"z1"});
}

TEST(HostOverrides, ANodeClaimThatFitsEveryHostMayUseEither) {
  auto s = overridden_snapshot();
  s.pods = {make_pod("small", 1000, 2 * 1024)};
  auto p = provision(s);
  keep_to_fitting_hosts(p, s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(req_values(p.nodeclaims[0], L::zone), (std::vector<std::string>{"z1", "z2"}));
}

TEST(HostOverrides, APodThatFitsNoAvailableHostGetsNoNodeClaimAndAReason) {
  auto s = overridden_snapshot();
  s.pods = {make_pod("big", 1000, 12 * 1024)};
  s.instance_types[0].offerings[0].available = false;  // z1 is full
  auto p = provision(s);
  keep_to_fitting_hosts(p, s);
  EXPECT_TRUE(p.nodeclaims.empty());
  ASSERT_NE(error_for(p, 0), nullptr);
}

}  // namespace
}  // namespace kp::scheduling::test
