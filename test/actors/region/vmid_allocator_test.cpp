#include <gtest/gtest.h>

#include "actors/region/vmid_allocator.hpp"

namespace kp::actors::region {
namespace {

using namespace std::chrono_literals;
const auto t0 = vmid_allocator::clock::time_point{} + 1h;

TEST(VmidAllocator, StartsAtTheFirstIdAndSkipsExistingOnes) {
  vmid_allocator ids(20000);
  ids.set_existing({20000, 20001, 20003, 9001});
  EXPECT_EQ(ids.reserve(t0), 20002u);
  EXPECT_EQ(ids.reserve(t0), 20004u);
}

TEST(VmidAllocator, NeverHandsOutAReservedIdTwice) {
  vmid_allocator ids(100);
  auto a = ids.reserve(t0), b = ids.reserve(t0), c = ids.reserve(t0);
  EXPECT_EQ(*a, 100u);
  EXPECT_EQ(*b, 101u);
  EXPECT_EQ(*c, 102u);
  ids.release(101, false);  // failed before anything existed: free again
  EXPECT_EQ(ids.reserve(t0), 101u);
}

TEST(VmidAllocator, ReservationsSurviveAnInventoryThatDoesNotYetShowThem) {
  vmid_allocator ids(100);
  EXPECT_EQ(ids.reserve(t0), 100u);
  ids.set_existing({});
  EXPECT_EQ(ids.reserve(t0), 101u);
}

TEST(VmidAllocator, AnIdTakenBySomeoneElseIsSkipped) {
  vmid_allocator ids(100);
  auto a = ids.reserve(t0);
  ids.mark_taken(*a);
  ids.release(*a, true);
  EXPECT_EQ(ids.reserve(t0), 101u);
}

TEST(VmidAllocator, DeletedIdsWaitOutTheQuarantine) {
  vmid_allocator ids(100, 300s);
  ids.set_existing({100});
  ids.deleted(100, t0);
  EXPECT_EQ(ids.reserve(t0 + 10s), 101u);
  EXPECT_FALSE(ids.is_free(100, t0 + 299s));
  EXPECT_TRUE(ids.is_free(100, t0 + 300s));
  EXPECT_EQ(ids.reserve(t0 + 301s), 100u);
}

TEST(VmidAllocator, AnExhaustedRangeYieldsNothing) {
  vmid_allocator ids(100, 300s, 101);
  EXPECT_TRUE(ids.reserve(t0));
  EXPECT_TRUE(ids.reserve(t0));
  EXPECT_FALSE(ids.reserve(t0));
}

}  // namespace
}  // namespace kp::actors::region

namespace kp::actors::region {
namespace {

TEST(VmidAllocator, NeverHandsOutAVmidANodeClaimNamesEvenWithoutItsVm) {
  vmid_allocator ids(20000);
  ids.set_existing({20001});
  ids.set_claimed({20000, 20002});  // their VMs vanished; the NodeClaims still exist
  EXPECT_EQ(ids.reserve(t0), 20003u);
  ids.set_claimed({});  // the NodeClaims went
  EXPECT_EQ(ids.reserve(t0), 20000u);
}

}  // namespace
}  // namespace kp::actors::region
