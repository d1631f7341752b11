#include "core/scheduling/reservation_pinning.hpp"

#include <gtest/gtest.h>

#include "core/instance_types/reservation.hpp"
#include "fixtures.hpp"

namespace kp::scheduling::test {
namespace {

namespace L = model::labels;
const std::string reserved_name = "r1.16VCPU-32GB";

// The built-in types plus a reserved copy of c1.16VCPU-32GB with `reservations`, offered on
// three hosts, with the reservations `claims` hold taken off (as the provisioner does).
snapshot reserved_snapshot(std::vector<instance_types::reservation> reservations,
                           std::vector<model::nodeclaim> claims = {}) {
  snapshot s;
  for (auto& c : claims) s.nodeclaims.push_back(model::share(std::move(c)));
  auto types = instance_types::builtin_instance_types();
  auto r = instance_types::vm_instance_type(reserved_name, 16, 32LL << 30);
  r.capacity_type = std::string(L::capacity_type_reserved);
  r.reservations = std::move(reservations);
  types.push_back(r);
  std::vector<instance_types::zone_capacity> caps;
  for (const char* z : {"z1", "z2", "z3"}) caps.push_back({"region1", z, 64, 512LL << 30, true});
  instance_types::build_offerings(types, caps);
  instance_types::apply_reservations(types, instance_types::reservations_held(s.nodeclaims));
  s.instance_types = std::move(types);
  s.nodepools.push_back(make_pool("default"));
  // Two pods that each need a 16-vCPU VM of their own.
  s.pods = {make_pod("a", 9000, 10240), make_pod("b", 9000, 10240)};
  return s;
}

plan provision_pinned(const snapshot& s) {
  auto p = provision(s);
  pin_reservations(p, s);
  return p;
}

std::vector<std::string> names(const planned_nodeclaim& nc, const snapshot& s) {
  return instance_type_names(nc, s);
}

bool lists(const std::vector<std::string>& v, const std::string& name) {
  return std::find(v.begin(), v.end(), name) != v.end();
}

model::nodeclaim holding(const std::string& id) {
  model::nodeclaim c;
  c.name = "held";
  c.nodepool = "default";
  c.requirements.push_back({std::string(L::reservation_id), op::in, {id}, std::nullopt});
  return c;
}

TEST(ReservedCapacity, TheFirstNodeClaimTakesTheReservedOfferingAndTheNextNeverGoesOverTheCount) {
  auto s = reserved_snapshot({{"res", "region1", "", 1}});
  auto p = provision_pinned(s);
  ASSERT_EQ(p.nodeclaims.size(), 2u);
  EXPECT_TRUE(p.errors.empty());
  const auto& first = p.nodeclaims[0];
  EXPECT_EQ(names(first, s), std::vector<std::string>{reserved_name});
  EXPECT_EQ(req_values(first, L::capacity_type), std::vector<std::string>{"reserved"});
  EXPECT_EQ(req_values(first, L::reservation_id), std::vector<std::string>{"res"});
  EXPECT_EQ(req_values(first, L::zone), (std::vector<std::string>{"z1", "z2", "z3"}));
  const auto& second = p.nodeclaims[1];
  EXPECT_FALSE(lists(names(second, s), reserved_name));
  EXPECT_TRUE(lists(names(second, s), "c1.16VCPU-32GB"));
  EXPECT_FALSE(lists(req_values(second, L::capacity_type), "reserved"));
  EXPECT_TRUE(req_values(second, L::reservation_id).empty());
  EXPECT_GT(second.price, first.price);
}

TEST(ReservedCapacity, ACountOfTwoServesBothNodeClaims) {
  auto s = reserved_snapshot({{"res", "region1", "", 2}});
  auto p = provision_pinned(s);
  ASSERT_EQ(p.nodeclaims.size(), 2u);
  for (const auto& nc : p.nodeclaims)
    EXPECT_EQ(names(nc, s), std::vector<std::string>{reserved_name});
}

TEST(ReservedCapacity, NodeClaimsInFlightHoldTheirReservation) {
  auto s = reserved_snapshot({{"res", "region1", "", 1}}, {holding("res")});
  auto p = provision_pinned(s);
  ASSERT_EQ(p.nodeclaims.size(), 2u);
  for (const auto& nc : p.nodeclaims) EXPECT_FALSE(lists(names(nc, s), reserved_name));
}

TEST(ReservedCapacity, ADeletedNodeClaimReleasesItsReservation) {
  auto held = reserved_snapshot({{"res", "region1", "", 1}}, {holding("res")});
  EXPECT_FALSE(lists(names(provision_pinned(held).nodeclaims[0], held), reserved_name));
  auto released = reserved_snapshot({{"res", "region1", "", 1}}, {});
  auto p = provision_pinned(released);
  EXPECT_EQ(names(p.nodeclaims[0], released), std::vector<std::string>{reserved_name});
}

TEST(ReservedCapacity, OnDemandOnlyNodePoolsNeverGetReservedOfferings) {
  auto s = reserved_snapshot({{"res", "region1", "", 2}});
  s.nodepools[0].template_.requirements = {
      {std::string(L::capacity_type), op::in, {"on-demand"}, std::nullopt}};
  auto p = provision_pinned(s);
  ASSERT_EQ(p.nodeclaims.size(), 2u);
  for (const auto& nc : p.nodeclaims) {
    EXPECT_FALSE(lists(names(nc, s), reserved_name));
    EXPECT_TRUE(req_values(nc, L::reservation_id).empty());
  }
}

TEST(ReservedCapacity, AReservedOnlyNodePoolDefersPodsOnceTheCountIsUsed) {
  auto s = reserved_snapshot({{"res", "region1", "", 1}});
  s.nodepools[0].template_.requirements = {
      {std::string(L::capacity_type), op::in, {"reserved"}, std::nullopt}};
  auto p = provision_pinned(s);
  ASSERT_EQ(p.nodeclaims.size(), 1u);
  EXPECT_EQ(req_values(p.nodeclaims[0], L::reservation_id), std::vector<std::string>{"res"});
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].reason.find("reserved capacity"), std::string::npos);
}

TEST(ReservedCapacity, AHostReservationPinsTheNodeClaimToThatHost) {
  auto s = reserved_snapshot({{"pve-z2", "region1", "z2", 1}});
  auto p = provision_pinned(s);
  ASSERT_EQ(p.nodeclaims.size(), 2u);
  EXPECT_EQ(req_values(p.nodeclaims[0], L::zone), std::vector<std::string>{"z2"});
  EXPECT_EQ(req_values(p.nodeclaims[0], L::reservation_id), std::vector<std::string>{"pve-z2"});
}

}  // namespace
}  // namespace kp::scheduling::test
