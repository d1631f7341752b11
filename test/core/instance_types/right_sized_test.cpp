#include "core/instance_types/right_sized.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace {

using namespace kp::instance_types;
constexpr std::int64_t MiB = 1024LL * 1024;
constexpr std::int64_t GiB = 1024 * MiB;

TEST(RightSizedNames, NameCarriesVcpusAndMemoryInMib) {
  EXPECT_EQ(right_sized_name({3, 5632}), "f1.3VCPU-5632MB");
  auto size = parse_right_sized_name("f1.3VCPU-5632MB");
  ASSERT_TRUE(size) << size.error().message;
  EXPECT_EQ(*size, (vm_size{3, 5632}));
  EXPECT_TRUE(is_right_sized_name("f1.1VCPU-256MB"));
  EXPECT_FALSE(is_right_sized_name("t1.2VCPU-6GB"));
  EXPECT_FALSE(is_right_sized_name("f10.2VCPU-256MB"));
}

TEST(RightSizedNames, MalformedNamesAreRefusedWithTheReason) {
  for (const char* bad : {"t1.2VCPU-6GB", "f1.", "f1.xVCPU-256MB", "f1.2VCPU-256GB", "f1.2VCPU-256",
                          "f1.-2VCPU-256MB", "f1.2VCPU-256MBx", "f1.2vcpu-256MB"}) {
    auto size = parse_right_sized_name(bad);
    ASSERT_FALSE(size) << bad;
    EXPECT_EQ(size.error().code, "invalid_instance_type");
    EXPECT_NE(size.error().message.find(bad), std::string::npos) << size.error().message;
  }
  auto zero = parse_right_sized_name("f1.0VCPU-512MB");
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().message.find("vCPUs"), std::string::npos);
  auto step = parse_right_sized_name("f1.2VCPU-1000MB");
  ASSERT_FALSE(step);
  EXPECT_NE(step.error().message.find("multiple of 256"), std::string::npos);
  EXPECT_FALSE(parse_right_sized_name("f1.99999999999999999999VCPU-256MB"));
  EXPECT_FALSE(parse_right_sized_name("f1.4097VCPU-256MB"));
}

TEST(RightSizedTypes, OverheadsAreThoseOfTheFixedFamilies) {
  // f1.4VCPU-16384MB has the shape of s1.4VCPU-16GB: same capacity, overhead and allocatable.
  auto f1 = right_sized_type({4, 16384}, 0.075);
  auto fixed = builtin_instance_types();
  apply_memory_overhead_percent(fixed, 0.075);
  const instance_type* s1 = nullptr;
  for (const auto& t : fixed)
    if (t.name == "s1.4VCPU-16GB") s1 = &t;
  ASSERT_NE(s1, nullptr);
  EXPECT_EQ(f1.name, "f1.4VCPU-16384MB");
  EXPECT_EQ(f1.family, "f1");
  EXPECT_EQ(f1.vm_cpus, 4);
  EXPECT_EQ(f1.vm_memory_bytes, 16 * GiB);
  EXPECT_EQ(f1.capacity, s1->capacity);
  EXPECT_EQ(f1.overhead, s1->overhead);
  EXPECT_EQ(f1.allocatable(), s1->allocatable());
  EXPECT_EQ(f1.requirements, s1->requirements);
  EXPECT_DOUBLE_EQ(right_sized_price({4, 16384}), synthetic_price(4, 16 * GiB));
}

TEST(RightSizedTypes, KubeReservedLadderFollowsTheSize) {
  EXPECT_EQ(right_sized_type({1, 768}, 0).overhead.kube_reserved.milli("memory"), 128 * MiB * 1000);
  EXPECT_EQ(right_sized_type({1, 1280}, 0).overhead.kube_reserved.milli("memory"),
            192 * MiB * 1000);
  EXPECT_EQ(right_sized_type({3, 3840}, 0).overhead.kube_reserved.milli("memory"),
            256 * MiB * 1000);
  EXPECT_EQ(right_sized_type({3, 3840}, 0).overhead.kube_reserved.milli("cpu"), 50);
  EXPECT_EQ(right_sized_type({5, 4096}, 0).overhead.kube_reserved.milli("cpu"), 100);
  EXPECT_EQ(right_sized_type({1, 1024}, 0).capacity.milli("pods"), 32000);
  EXPECT_EQ(right_sized_type({1, 1280}, 0).capacity.milli("pods"), 64000);
  EXPECT_EQ(right_sized_type({1, 2304}, 0).capacity.milli("pods"), 110000);
}

TEST(RightSizedTypes, FastAllocatableAgreesWithTheBuiltType) {
  for (double pct : {0.0, 0.075, 0.2})
    for (std::int64_t v : {1, 2, 3, 4, 7, 64})
      for (std::int64_t m = 256; m <= 20 * 1024; m += 256) {
        auto a = right_sized_type({v, m}, pct).allocatable();
        ASSERT_EQ(a.milli("cpu"), right_sized_allocatable_cpu_milli(v)) << v;
        ASSERT_EQ(a.milli("memory"), right_sized_allocatable_memory_bytes(m, pct) * 1000)
            << v << " " << m << " " << pct;
        ASSERT_EQ(a.milli("pods"), right_sized_pods(m) * 1000) << m;
      }
}

TEST(RightSizedSizing, ThreeCpuAndFiveGiBGetFourVcpusAndTheNextMemoryStep) {
  vm_need need{3000, 5 * GiB, 1, 0};
  auto size = smallest_right_size(need, 0);
  ASSERT_TRUE(size);
  // 3 vCPUs leave 2940m; 5Gi plus 384Mi + 64Mi + 100Mi needs 5668Mi -> 5888Mi.
  EXPECT_EQ(*size, (vm_size{4, 5888}));
  auto with_overhead = smallest_right_size(need, 0.075);
  ASSERT_TRUE(with_overhead);
  EXPECT_EQ(*with_overhead, (vm_size{4, 6144}));
  EXPECT_LE(with_overhead->memory_mib, 7680);
}

// The example of docs/instance-types.md: a shape the fixed catalogue misses.
TEST(RightSizedSizing, TwoAndAHalfCpusAndNineGiBGetThreeVcpusAndUndercutTheCatalogue) {
  auto size = smallest_right_size({2500, 9 * GiB, 1, 0}, 0.075);
  ASSERT_TRUE(size);
  EXPECT_EQ(right_sized_name(*size), "f1.3VCPU-10752MB");
  EXPECT_NEAR(right_sized_price(*size), 0.086, 0.0005);
  EXPECT_NEAR(synthetic_price(4, 12 * GiB), 0.113, 0.0005);  // t1.4VCPU-12GB
  EXPECT_NEAR(right_sized_price({4, 6144}), 0.1064, 0.00005);
  EXPECT_NEAR(synthetic_price(4, 8 * GiB), 0.1086, 0.00005);  // c1.4VCPU-8GB
}

TEST(RightSizedSizing, TheSmallestSizeFitsAndOneStepLessDoesNot) {
  for (double pct : {0.0, 0.075})
    for (std::int64_t cpu : {0, 1, 500, 970, 971, 1940, 1941, 2940, 3890, 3891, 15000})
      for (std::int64_t mem_mib : {0, 1, 100, 500, 1000, 1900, 3500, 4000, 16000, 100000})
        for (std::int64_t pods : {1, 33, 65, 110}) {
          vm_need need{cpu, mem_mib * MiB, pods, 0};
          auto size = smallest_right_size(need, pct);
          ASSERT_TRUE(size);
          auto a = right_sized_type(*size, pct).allocatable();
          ASSERT_GE(a.milli("cpu"), cpu);
          ASSERT_GE(a.milli("memory"), need.memory_bytes * 1000);
          ASSERT_GE(a.milli("pods"), pods * 1000);
          ASSERT_EQ(size->memory_mib % 256, 0);
          if (size->vcpus > 1) {
            auto smaller = right_sized_type({size->vcpus - 1, size->memory_mib}, pct).allocatable();
            EXPECT_LT(smaller.milli("cpu"), cpu);
          }
          if (size->memory_mib > 256) {
            auto smaller = right_sized_type({size->vcpus, size->memory_mib - 256}, pct);
            bool fits = smaller.allocatable().milli("memory") >= need.memory_bytes * 1000 &&
                        smaller.allocatable().milli("pods") >= pods * 1000;
            EXPECT_FALSE(fits) << cpu << " " << mem_mib << " " << pods;
          }
        }
}

TEST(RightSizedSizing, NoSizeHoldsMoreThan110PodsOr30GiBOfEphemeralStorage) {
  EXPECT_FALSE(smallest_right_size({1000, GiB, 111, 0}, 0));
  EXPECT_FALSE(smallest_right_size({1000, GiB, 1, 31 * GiB}, 0));
  EXPECT_TRUE(smallest_right_size({1000, GiB, 110, 30 * GiB}, 0));
  EXPECT_FALSE(smallest_right_size({5000LL * 1000, GiB, 1, 0}, 0));  // beyond 4096 vCPUs
}

TEST(RightSizedOfferings, OfferedOnlyWhereAHostHasTheRoom) {
  std::vector<instance_type> one{right_sized_type({6, 8192}, 0)};
  build_offerings(one, {{"r1", "pve1", 4, 64 * GiB, true},
                        {"r1", "pve2", 8, 64 * GiB, true},
                        {"r1", "pve3", 8, 4 * GiB, true},
                        {"r1", "pve4", 8, 64 * GiB, false}});
  ASSERT_EQ(one[0].offerings.size(), 4u);
  EXPECT_FALSE(one[0].offerings[0].available);  // too few CPUs
  EXPECT_TRUE(one[0].offerings[1].available);
  EXPECT_FALSE(one[0].offerings[2].available);  // too little memory
  EXPECT_FALSE(one[0].offerings[3].available);  // host excluded
  EXPECT_DOUBLE_EQ(one[0].offerings[1].price, right_sized_price({6, 8192}));
}

TEST(ResolveInstanceType, ListedTypesFirstThenRightSizedNames) {
  auto types = builtin_instance_types();
  auto listed = resolve_instance_type(types, "t1.2VCPU-6GB", 0.075);
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->vm_cpus, 2);
  auto f1 = resolve_instance_type(types, "f1.3VCPU-5632MB", 0.075);
  ASSERT_TRUE(f1);
  EXPECT_EQ(f1->vm_cpus, 3);
  EXPECT_EQ(f1->vm_memory_bytes, 5632 * MiB);
  EXPECT_LT(f1->capacity.milli("memory"), 5632 * MiB * 1000);  // the percent is applied
  EXPECT_FALSE(resolve_instance_type(types, "x9.nothing", 0));
}

}  // namespace
