#include "core/node_overlay/node_overlay.hpp"

#include <gtest/gtest.h>

#include "core/model/quantity.hpp"

namespace kp::overlays {
namespace {

using instance_types::instance_type;
using instance_types::offering;
using model::selector_operator;

instance_type make_type(std::string name, std::string family, double price) {
  instance_type t;
  t.name = std::move(name);
  t.family = std::move(family);
  t.capacity.set("cpu", model::quantity::from_units(2));
  t.offerings = {offering{"r1", "pve1", "on-demand", price, true},
                 offering{"r1", "pve2", "on-demand", price, true}};
  return t;
}

std::vector<instance_type> catalogue() {
  return {make_type("c1.2VCPU-4GB", "c1", 0.054), make_type("m1.2VCPU-16GB", "m1", 0.067)};
}

model::node_selector_requirement in(std::string key, std::vector<std::string> values) {
  return {std::move(key), selector_operator::in, std::move(values), std::nullopt};
}

const std::string family = "karpenter.proxmox.sinextra.dev/instance-family";

overlay make_overlay(std::string name, std::int32_t weight,
                     std::vector<model::node_selector_requirement> reqs) {
  overlay o;
  o.name = std::move(name);
  o.weight = weight;
  o.requirements = std::move(reqs);
  return o;
}

TEST(NodeOverlay, APriceSetsEveryOfferingOfTheSelectedTypesOnly) {
  auto o = make_overlay("cheap-m1", 0, {in(family, {"m1"})});
  o.price = "0.01";
  auto r = apply_overlays(catalogue(), {o});
  ASSERT_EQ(r.verdicts.size(), 1u);
  EXPECT_EQ(r.verdicts[0].kind, verdict_kind::applied);
  EXPECT_DOUBLE_EQ(r.types[0].offerings[0].price, 0.054);
  EXPECT_DOUBLE_EQ(r.types[1].offerings[0].price, 0.01);
  EXPECT_DOUBLE_EQ(r.types[1].offerings[1].price, 0.01);
}

TEST(NodeOverlay, AnAbsoluteAdjustmentMovesThePriceByTheAmount) {
  auto o = make_overlay("dearer-c1", 0, {in(family, {"c1"})});
  o.price_adjustment = "+1";
  auto r = apply_overlays(catalogue(), {o});
  EXPECT_DOUBLE_EQ(r.types[0].offerings[0].price, 1.054);
  o.price_adjustment = "-1";
  r = apply_overlays(catalogue(), {o});
  EXPECT_DOUBLE_EQ(r.types[0].offerings[0].price, 0.0);
}

TEST(NodeOverlay, APercentageAdjustmentScalesThePrice) {
  auto o = make_overlay("half-c1", 0, {in(family, {"c1"})});
  o.price_adjustment = "-50%";
  auto r = apply_overlays(catalogue(), {o});
  EXPECT_DOUBLE_EQ(r.types[0].offerings[0].price, 0.027);
  EXPECT_DOUBLE_EQ(r.types[1].offerings[0].price, 0.067);
}

TEST(NodeOverlay, AZoneRequirementChangesOnlyThatZonesOffering) {
  auto o = make_overlay("pve2-dear", 0, {in("topology.kubernetes.io/zone", {"pve2"})});
  o.price = "9";
  auto r = apply_overlays(catalogue(), {o});
  EXPECT_DOUBLE_EQ(r.types[0].offerings[0].price, 0.054);
  EXPECT_DOUBLE_EQ(r.types[0].offerings[1].price, 9.0);
}

TEST(NodeOverlay, CapacityAddsExtendedResourcesAndKeepsTheRest) {
  auto o = make_overlay("dongle", 0, {in("node.kubernetes.io/instance-type", {"c1.2VCPU-4GB"})});
  o.capacity.set("example.com/dongle", model::quantity::from_units(1));
  auto r = apply_overlays(catalogue(), {o});
  EXPECT_EQ(r.types[0].capacity.milli("example.com/dongle"), 1000);
  EXPECT_EQ(r.types[0].capacity.milli("cpu"), 2000);
  EXPECT_FALSE(r.types[1].capacity.has("example.com/dongle"));
  EXPECT_EQ(r.types[0].allocatable().milli("example.com/dongle"), 1000);
}

TEST(NodeOverlay, CapacityThatNamesAStandardResourceIsRefusedAndApplyNowhere) {
  auto o = make_overlay("more-cpu", 0, {});
  o.capacity.set("cpu", model::quantity::from_units(64));
  auto r = apply_overlays(catalogue(), {o});
  EXPECT_EQ(r.verdicts[0].kind, verdict_kind::invalid);
  EXPECT_NE(r.verdicts[0].message.find("spec.capacity"), std::string::npos);
  EXPECT_EQ(r.types[0].capacity.milli("cpu"), 2000);
}

TEST(NodeOverlay, TheHigherWeightWinsThePriceWhateverTheInputOrder) {
  auto low = make_overlay("a-low", 10, {});
  low.price = "5";
  auto high = make_overlay("b-high", 20, {in(family, {"c1"})});
  high.price = "1";
  auto r = apply_overlays(catalogue(), {low, high});
  EXPECT_DOUBLE_EQ(r.types[0].offerings[0].price, 1.0);  // both select c1: the heavier wins
  EXPECT_DOUBLE_EQ(r.types[1].offerings[0].price, 5.0);  // only the lighter selects m1
  EXPECT_EQ(r.verdicts[0].kind, verdict_kind::applied);
  EXPECT_EQ(r.verdicts[1].kind, verdict_kind::applied);
}

TEST(NodeOverlay, CapacityFromSeveralWeightsMergesAndTheHigherWeightKeepsItsValue) {
  auto high = make_overlay("high", 20, {});
  high.capacity.set("example.com/dongle", model::quantity::from_units(2));
  auto low = make_overlay("low", 10, {});
  low.capacity.set("example.com/dongle", model::quantity::from_units(7));
  low.capacity.set("example.com/fpga", model::quantity::from_units(1));
  auto r = apply_overlays(catalogue(), {low, high});
  EXPECT_EQ(r.types[0].capacity.milli("example.com/dongle"), 2000);
  EXPECT_EQ(r.types[0].capacity.milli("example.com/fpga"), 1000);
}

TEST(NodeOverlay, EqualWeightsThatSetOnePriceConflictAndTheLaterOneIsAppliedNowhere) {
  // Equal weights go by name, later in the alphabet first: "zeta" wins, "alpha" is refused,
  // even on the types only "alpha" selects.
  auto zeta = make_overlay("zeta", 5, {in(family, {"c1"})});
  zeta.price = "1";
  auto alpha = make_overlay("alpha", 5, {});
  alpha.price = "2";
  auto r = apply_overlays(catalogue(), {alpha, zeta});
  EXPECT_EQ(r.verdicts[1].kind, verdict_kind::applied);
  ASSERT_EQ(r.verdicts[0].kind, verdict_kind::conflict);
  EXPECT_EQ(r.verdicts[0].conflicts_with, std::vector<std::string>{"zeta"});
  EXPECT_NE(r.verdicts[0].message.find("zeta"), std::string::npos);
  EXPECT_DOUBLE_EQ(r.types[0].offerings[0].price, 1.0);
  EXPECT_DOUBLE_EQ(r.types[1].offerings[0].price, 0.067);
}

TEST(NodeOverlay, EqualWeightsThatNameOneResourceConflict) {
  auto a = make_overlay("a", 3, {});
  a.capacity.set("example.com/dongle", model::quantity::from_units(1));
  auto b = make_overlay("b", 3, {in(family, {"m1"})});
  b.capacity.set("example.com/dongle", model::quantity::from_units(4));
  auto r = apply_overlays(catalogue(), {a, b});
  EXPECT_EQ(r.verdicts[1].kind, verdict_kind::applied);
  EXPECT_EQ(r.verdicts[0].kind, verdict_kind::conflict);
  EXPECT_FALSE(r.types[0].capacity.has("example.com/dongle"));
  EXPECT_EQ(r.types[1].capacity.milli("example.com/dongle"), 4000);
}

TEST(NodeOverlay, EqualWeightsThatChangeDifferentThingsBothApply) {
  auto price = make_overlay("price", 3, {});
  price.price_adjustment = "+10%";
  auto capacity = make_overlay("capacity", 3, {});
  capacity.capacity.set("example.com/dongle", model::quantity::from_units(1));
  auto r = apply_overlays(catalogue(), {price, capacity});
  EXPECT_EQ(r.verdicts[0].kind, verdict_kind::applied);
  EXPECT_EQ(r.verdicts[1].kind, verdict_kind::applied);
  EXPECT_NEAR(r.types[0].offerings[0].price, 0.0594, 1e-12);
  EXPECT_TRUE(r.types[0].capacity.has("example.com/dongle"));
}

TEST(NodeOverlay, AnOverlayThatMatchesNothingChangesNothing) {
  auto o = make_overlay("nothing", 0, {in(family, {"s1"})});
  o.price = "0";
  auto none = make_overlay("unknown-label", 0, {in("example.com/rack", {"a"})});
  none.price = "0";
  auto r = apply_overlays(catalogue(), {o, none});
  EXPECT_EQ(r.types, catalogue());
  EXPECT_EQ(r.verdicts[0].kind, verdict_kind::applied);
  EXPECT_EQ(r.verdicts[1].kind, verdict_kind::applied);
}

TEST(NodeOverlay, InvalidOverlaysAreRefusedWithTheFieldAndTheRestStillApply) {
  auto both = make_overlay("both", 0, {});
  both.price = "1";
  both.price_adjustment = "+1";
  auto host = make_overlay("host", 0, {in("kubernetes.io/hostname", {"n1"})});
  auto gt =
      make_overlay("gt", 0, {{"example.com/gen", selector_operator::gt, {"x"}, std::nullopt}});
  auto unreadable = make_overlay("unreadable", 0, {});
  unreadable.unreadable = "spec.capacity[\"example.com/x\"]: \"1q\" is not a quantity";
  auto good = make_overlay("good", 0, {});
  good.price = "0.5";
  auto r = apply_overlays(catalogue(), {both, host, gt, unreadable, good});
  for (int i = 0; i < 4; ++i) EXPECT_EQ(r.verdicts[i].kind, verdict_kind::invalid) << i;
  EXPECT_NE(r.verdicts[0].message.find("priceAdjustment"), std::string::npos);
  EXPECT_NE(r.verdicts[1].message.find("spec.requirements[0]"), std::string::npos);
  EXPECT_NE(r.verdicts[2].message.find("integer"), std::string::npos);
  EXPECT_EQ(r.verdicts[3].message, unreadable.unreadable);
  EXPECT_EQ(r.verdicts[4].kind, verdict_kind::applied);
  EXPECT_DOUBLE_EQ(r.types[0].offerings[0].price, 0.5);
}

TEST(NodeOverlay, AnInvalidOverlayIsNotAConflictForTheOthers) {
  auto bad = make_overlay("z-bad", 5, {});
  bad.price = "nope";
  auto good = make_overlay("a-good", 5, {});
  good.price = "3";
  auto r = apply_overlays(catalogue(), {bad, good});
  EXPECT_EQ(r.verdicts[0].kind, verdict_kind::invalid);
  EXPECT_EQ(r.verdicts[1].kind, verdict_kind::applied);
  EXPECT_DOUBLE_EQ(r.types[1].offerings[1].price, 3.0);
}

}  // namespace
}  // namespace kp::overlays
