#include "core/instance_types/instance_type.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace {

using namespace kp::instance_types;
constexpr std::int64_t Mi = 1024LL * 1024 * 1000;  // milli-units of one MiB
constexpr std::int64_t Gi = 1024 * Mi;

const instance_type& find(const std::vector<instance_type>& v, const std::string& name) {
  auto it = std::find_if(v.begin(), v.end(), [&](const auto& t) { return t.name == name; });
  EXPECT_NE(it, v.end()) << name;
  return *it;
}

TEST(BuiltinInstanceTypes, TwentyTypesInFourFamiliesWithGoProviderNames) {
  auto types = builtin_instance_types();
  ASSERT_EQ(types.size(), 20u);
  for (const char* n : {"c1.1VCPU-2GB", "t1.2VCPU-6GB", "s1.4VCPU-16GB", "m1.16VCPU-128GB"})
    EXPECT_EQ(find(types, n).name, n);
  EXPECT_EQ(find(types, "t1.2VCPU-6GB").family, "t1");
}

TEST(BuiltinInstanceTypes, CapacityFollowsCpuAndMemoryFactor) {
  auto types = builtin_instance_types();
  const auto& t = find(types, "t1.2VCPU-6GB");
  EXPECT_EQ(t.capacity.milli("cpu"), 2000);
  EXPECT_EQ(t.capacity.milli("memory"), 6 * Gi);
  EXPECT_EQ(t.capacity.milli("ephemeral-storage"), 30 * Gi);
  EXPECT_EQ(t.capacity.milli("pods"), 110000);
  EXPECT_EQ(find(types, "c1.1VCPU-2GB").capacity.milli("pods"), 64000);
}

TEST(BuiltinInstanceTypes, KubeReservedMemoryScalesWithGibNotAlways384Mi) {
  auto types = builtin_instance_types();
  // 2 GiB -> 256Mi (the Go provider's unit bug reserves 384Mi everywhere).
  EXPECT_EQ(find(types, "c1.1VCPU-2GB").overhead.kube_reserved.milli("memory"), 256 * Mi);
  EXPECT_EQ(find(types, "t1.1VCPU-3GB").overhead.kube_reserved.milli("memory"), 256 * Mi);
  EXPECT_EQ(find(types, "s1.1VCPU-4GB").overhead.kube_reserved.milli("memory"), 384 * Mi);
  EXPECT_EQ(find(types, "c1.1VCPU-2GB").overhead.kube_reserved.milli("cpu"), 20);
  EXPECT_EQ(find(types, "c1.2VCPU-4GB").overhead.kube_reserved.milli("cpu"), 50);
  EXPECT_EQ(find(types, "c1.4VCPU-8GB").overhead.kube_reserved.milli("cpu"), 100);
}

TEST(BuiltinInstanceTypes, AllocatableSubtractsAllThreeOverheads) {
  auto types = builtin_instance_types();
  auto a = find(types, "c1.2VCPU-4GB").allocatable();
  EXPECT_EQ(a.milli("cpu"), 2000 - 50 - 10);
  EXPECT_EQ(a.milli("memory"), 4 * Gi - 384 * Mi - 64 * Mi - 100 * Mi);
}

TEST(BuiltinInstanceTypes, MemoryOverheadPercentShrinksCapacityNotTheVm) {
  auto types = builtin_instance_types();
  apply_memory_overhead_percent(types, 0.075);
  const auto& t = find(types, "s1.4VCPU-16GB");
  EXPECT_EQ(t.vm_memory_bytes, 16LL * 1024 * 1024 * 1024);
  std::int64_t cut = static_cast<std::int64_t>(std::ceil(16.0 * 1024 * 1024 * 1024 * 0.075));
  EXPECT_EQ(t.capacity.milli("memory"), (16LL * 1024 * 1024 * 1024 - cut) * 1000);
}

// Found by fuzzing INSTANCE_TYPES_FILE: a petabyte type with an overhead fraction above 1 made
// the remaining memory negative and its milli-units overflow.
TEST(BuiltinInstanceTypes, AnOverheadOfTheWholeMemoryOrMoreLeavesNoneNeverANegativeAmount) {
  auto types = builtin_instance_types();
  types[0].vm_memory_bytes = 3'333'333'333'000'094;
  apply_memory_overhead_percent(types, 7.5);
  for (const auto& t : types) EXPECT_EQ(t.capacity.milli("memory"), 0) << t.name;
  types = builtin_instance_types();
  types[0].vm_memory_bytes = 9'000'000'000'000'000'000;  // beyond milli-units: saturates
  apply_memory_overhead_percent(types, 0.075);
  EXPECT_EQ(types[0].capacity.milli("memory"), std::numeric_limits<std::int64_t>::max());
}

TEST(Offerings, OnePerZoneAvailableOnlyWhereTheHostHasRoom) {
  auto types = builtin_instance_types();
  build_offerings(types, {{"r1", "pve-a", 4, 8LL << 30, true},
                          {"r1", "pve-b", 64, 512LL << 30, true},
                          {"r1", "pve-c", 64, 512LL << 30, false}});
  const auto& big = find(types, "s1.8VCPU-32GB");
  ASSERT_EQ(big.offerings.size(), 3u);
  EXPECT_FALSE(big.offerings[0].available);
  EXPECT_TRUE(big.offerings[1].available);
  EXPECT_FALSE(big.offerings[2].available);  // host excluded
  EXPECT_EQ(big.offerings[1].capacity_type, "on-demand");
  EXPECT_DOUBLE_EQ(big.offerings[1].price, 0.025 * 8 + 0.001 * (32.0 * (1LL << 30)) / 1e9);
}

TEST(DeclaredInstanceTypes, AreMadeWholeFromNameAndCapacity) {
  declared_instance_type d;
  d.name = "x1.2VCPU-3GB";
  d.capacity.set("cpu", kp::model::quantity::from_milli(1500));
  d.capacity.set("memory", kp::model::quantity{3 * Gi, kp::model::quantity_format::binary_si});
  auto r = from_declared({d});
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto& t = (*r)[0];
  EXPECT_EQ(t.family, "x1");
  EXPECT_EQ(t.capacity_type, "on-demand");
  EXPECT_EQ(t.vm_cpus, 2) << "1.5 cpu is a 2-vCPU VM";
  EXPECT_EQ(t.vm_memory_bytes, 3LL << 30);
  EXPECT_EQ(t.capacity.milli("pods"), 110000);
  EXPECT_EQ(t.requirements.size(), 2u);  // arch and os
}

TEST(DeclaredInstanceTypes, WithoutNameTwiceOrWithoutCpuAndMemoryAreErrorsNamingThem) {
  declared_instance_type ok;
  ok.name = "a";
  ok.capacity.set("cpu", kp::model::quantity::from_units(1));
  ok.capacity.set("memory", kp::model::quantity{Gi, kp::model::quantity_format::binary_si});
  auto unnamed = ok;
  unnamed.name.clear();
  auto no_memory = ok;
  no_memory.capacity = {};
  no_memory.capacity.set("cpu", kp::model::quantity::from_units(1));
  const std::vector<std::pair<std::vector<declared_instance_type>, std::string>> cases = {
      {{ok, unnamed}, "item 1 has no name"},
      {{ok, ok}, "instance type a is listed twice"},
      {{no_memory}, "instance type a needs a positive cpu and memory capacity"}};
  for (const auto& [items, message] : cases) {
    auto r = from_declared(items);
    ASSERT_FALSE(r.ok()) << message;
    EXPECT_EQ(r.error().code, "invalid_instance_types");
    EXPECT_EQ(r.error().message, message);
  }
}

}  // namespace
