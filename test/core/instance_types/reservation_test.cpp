#include "core/instance_types/reservation.hpp"

#include <gtest/gtest.h>

#include "core/model/labels.hpp"

namespace {

using namespace kp::instance_types;
namespace L = kp::model::labels;

// A reserved 4-vCPU type, offered on two hosts of region r1.
instance_type reserved_type(std::vector<reservation> reservations) {
  auto t = vm_instance_type("r1.4VCPU-8GB", 4, 8LL << 30);
  t.capacity_type = std::string(L::capacity_type_reserved);
  t.reservations = std::move(reservations);
  return t;
}

std::vector<instance_type> offered(instance_type t) {
  std::vector<instance_type> types{std::move(t)};
  build_offerings(types,
                  {{"r1", "pve1", 64, 256LL << 30, true}, {"r1", "pve2", 64, 256LL << 30, true}});
  return types;
}

kp::model::nodeclaim holder(const std::string& name, const std::string& id, bool launched) {
  kp::model::nodeclaim c;
  c.name = name;
  if (launched)
    c.labels[std::string(L::reservation_id)] = id;
  else
    c.requirements.push_back(
        {std::string(L::reservation_id), kp::model::selector_operator::in, {id}, std::nullopt});
  return c;
}

std::vector<kp::model::shared_nodeclaim> shared(std::vector<kp::model::nodeclaim> claims) {
  std::vector<kp::model::shared_nodeclaim> out;
  for (auto& c : claims) out.push_back(kp::model::share(std::move(c)));
  return out;
}

TEST(ReservedOfferings, AreAvailableUntilTheRegionCountIsHeld) {
  auto types = offered(reserved_type({{"db", "r1", "", 2}}));
  apply_reservations(types, reservations_held(shared({holder("a", "db", true)})));
  for (const auto& o : types[0].offerings) {
    EXPECT_TRUE(o.available) << o.zone;
    EXPECT_EQ(o.reservation_id, "db");
    EXPECT_EQ(o.reservation_capacity, 1);
    EXPECT_EQ(o.capacity_type, "reserved");
  }
  types = offered(reserved_type({{"db", "r1", "", 2}}));
  apply_reservations(
      types, reservations_held(shared({holder("a", "db", true), holder("b", "db", false)})));
  for (const auto& o : types[0].offerings) {
    EXPECT_FALSE(o.available) << o.zone << ": the count of 2 is held";
    EXPECT_EQ(o.reservation_capacity, 0);
  }
}

TEST(ReservedOfferings, AreReleasedWhenTheNodeClaimsHoldingThemGo) {
  auto claims = shared({holder("a", "db", true)});
  auto types = offered(reserved_type({{"db", "r1", "", 1}}));
  apply_reservations(types, reservations_held(claims));
  EXPECT_FALSE(types[0].offerings[0].available);
  claims.clear();  // the NodeClaim is gone
  types = offered(reserved_type({{"db", "r1", "", 1}}));
  apply_reservations(types, reservations_held(claims));
  EXPECT_TRUE(types[0].offerings[0].available);
  EXPECT_EQ(types[0].offerings[0].reservation_capacity, 1);
}

TEST(ReservedOfferings, AHostReservationCoversOnlyThatHostAndWinsOverTheRegion) {
  auto types = offered(reserved_type({{"pve2-only", "r1", "pve2", 1}}));
  apply_reservations(types, {});
  EXPECT_FALSE(types[0].offerings[0].available) << "pve1 has no reservation";
  EXPECT_TRUE(types[0].offerings[1].available);
  EXPECT_EQ(types[0].offerings[1].reservation_id, "pve2-only");

  types = offered(reserved_type({{"region", "r1", "", 3}, {"host", "r1", "pve2", 1}}));
  apply_reservations(types, {{"host", 1}});
  EXPECT_EQ(types[0].offerings[0].reservation_id, "region");
  EXPECT_EQ(types[0].offerings[0].reservation_capacity, 3);
  EXPECT_EQ(types[0].offerings[1].reservation_id, "host");
  EXPECT_FALSE(types[0].offerings[1].available);
}

TEST(ReservedOfferings, AreCheaperThanAnyOnDemandOfferingAndKeepTheirOrder) {
  auto types = offered(reserved_type({{"db", "", "", 1}}));
  auto big = reserved_type({{"big", "", "", 1}});
  big.name = "r1.16VCPU-64GB";
  big.vm_cpus = 16;
  big.vm_memory_bytes = 64LL << 30;
  types.push_back(big);
  auto smallest_on_demand = vm_instance_type("c1.1VCPU-2GB", 1, 2LL << 30);
  types.push_back(smallest_on_demand);
  build_offerings(types, {{"r1", "pve1", 64, 256LL << 30, true}});
  apply_reservations(types, {});
  EXPECT_LT(types[1].offerings[0].price, types[2].offerings[0].price);
  EXPECT_LT(types[0].offerings[0].price, types[1].offerings[0].price);
}

TEST(ReservedOfferings, OtherCapacityTypesAreLeftAlone) {
  std::vector<instance_type> types{vm_instance_type("c1.4VCPU-8GB", 4, 8LL << 30)};
  build_offerings(types, {{"r1", "pve1", 64, 256LL << 30, true}});
  apply_reservations(types, {{"db", 5}});
  EXPECT_TRUE(types[0].offerings[0].available);
  EXPECT_TRUE(types[0].offerings[0].reservation_id.empty());
}

TEST(ReservationHolds, CountLabelsAndPinnedRequirementsButNotOtherClaims) {
  auto multi = holder("c", "db", false);
  multi.requirements[0].values.push_back("other");  // not pinned to one reservation
  kp::model::nodeclaim plain;
  plain.name = "d";
  auto held =
      reservations_held(shared({holder("a", "db", true), holder("b", "db", false), multi, plain}));
  EXPECT_EQ(held.size(), 1u);
  EXPECT_EQ(held["db"], 2);
}

TEST(ReservationValidation, FillsInIdsFromTypeRegionAndHost) {
  auto r =
      validate_reservations("r1.4VCPU-8GB", "reserved", {{"", "pve", "pve2", 1}, {"", "", "", 2}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)[0].id, "r1.4VCPU-8GB-pve-pve2");
  EXPECT_EQ((*r)[1].id, "r1.4VCPU-8GB");
}

TEST(ReservationValidation, RefusesMalformedEntriesNamingTypeAndField) {
  struct bad {
    std::string capacity_type;
    std::vector<reservation> items;
    std::string message;
  };
  for (const auto& b : std::vector<bad>{
           {"reserved", {}, "instance type r capacitytype \"reserved\" needs reservations"},
           {"on-demand", {{"x", "", "", 1}}, "instance type r reservations need capacitytype"},
           {"reserved", {{"x", "", "", 0}}, "instance type r reservations[0].count must be"},
           {"reserved", {{"bad id", "", "", 1}}, "instance type r reservations[0].id \"bad id\""},
           {"reserved", {{"a", "p", "", 1}, {"b", "p", "", 1}}, "reservations[1] repeats region"},
           {"reserved", {{"a", "p", "", 1}, {"a", "q", "", 1}}, "reservations[1].id \"a\" is"},
       }) {
    auto r = validate_reservations("r", b.capacity_type, b.items);
    ASSERT_FALSE(r.ok()) << b.message;
    EXPECT_EQ(r.error().code, "invalid_instance_types");
    EXPECT_NE(r.error().message.find(b.message), std::string::npos) << r.error().message;
  }
}

TEST(ReservationValidation, DeclaredTypesRefuseUnknownCapacityTypesAndSharedIds) {
  declared_instance_type a;
  a.name = "r1.a";
  a.capacity.set("cpu", kp::model::quantity::from_units(1));
  a.capacity.set("memory", kp::model::quantity::from_units(1LL << 30));
  a.capacity_type = "reserved";
  a.reservations = {{"shared", "", "", 1}};
  auto b = a;
  b.name = "r1.b";
  auto r = from_declared({a, b});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("instance type r1.b reservation id \"shared\" is already used "
                                   "by instance type r1.a"),
            std::string::npos)
      << r.error().message;
  a.capacity_type = "preemptible";
  a.reservations.clear();
  r = from_declared({a});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("instance type r1.a capacitytype \"preemptible\" is not"),
            std::string::npos)
      << r.error().message;
}

}  // namespace
