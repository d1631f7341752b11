#include "actors/node_overlay/overlay_conditions.hpp"

#include <gtest/gtest.h>

namespace kp::actors::node_overlay {
namespace {

kube::node_overlay make_object() {
  kube::node_overlay o;
  o.metadata.name = "alpha";
  o.metadata.generation = 3;
  return o;
}

const kube::condition* find(const kube::node_overlay_status& s, const std::string& type) {
  for (const auto& c : s.conditions)
    if (c.type == type) return &c;
  return nullptr;
}

TEST(OverlayConditions, AnAppliedOverlayIsValidatedAndReady) {
  auto s = desired_status(make_object(), {"alpha", overlays::verdict_kind::applied, "", {}}, 0);
  ASSERT_NE(find(s, "ValidationSucceeded"), nullptr);
  EXPECT_EQ(find(s, "ValidationSucceeded")->status, "True");
  EXPECT_EQ(find(s, "Ready")->status, "True");
  EXPECT_EQ(find(s, "Ready")->observed_generation, 3);
  EXPECT_FALSE(find(s, "Ready")->last_transition_time.empty());
}

TEST(OverlayConditions, AConflictNamesTheOtherOverlaysAndMakesItNotReady) {
  overlays::verdict v{
      "alpha", overlays::verdict_kind::conflict, "conflict with another overlay: beta", {"beta"}};
  auto s = desired_status(make_object(), v, 0);
  EXPECT_EQ(find(s, "ValidationSucceeded")->status, "False");
  EXPECT_EQ(find(s, "ValidationSucceeded")->reason, "Conflict");
  EXPECT_EQ(find(s, "ValidationSucceeded")->message, "conflict with another overlay: beta");
  EXPECT_EQ(find(s, "Ready")->status, "False");
  EXPECT_EQ(find(s, "Ready")->reason, "UnhealthyDependents");
}

TEST(OverlayConditions, AnInvalidOverlayCarriesRuntimeValidationAndTheFieldInTheMessage) {
  overlays::verdict v{"alpha", overlays::verdict_kind::invalid, "spec.price: \"x\" is bad", {}};
  auto s = desired_status(make_object(), v, 0);
  EXPECT_EQ(find(s, "ValidationSucceeded")->reason, "RuntimeValidation");
  EXPECT_NE(status_patch(s).find("spec.price"), std::string::npos);
}

TEST(OverlayConditions, AnUnchangedStatusKeepsItsTransitionTimeAndNeedsNoWrite) {
  auto o = make_object();
  overlays::verdict v{"alpha", overlays::verdict_kind::applied, "", {}};
  o.status = desired_status(o, v, 1'000);
  auto again = desired_status(o, v, 999'000);
  EXPECT_TRUE(equivalent(o.status, again));
  EXPECT_EQ(find(again, "Ready")->last_transition_time,
            find(o.status, "Ready")->last_transition_time);
  v.kind = overlays::verdict_kind::conflict;
  EXPECT_FALSE(equivalent(o.status, desired_status(o, v, 999'000)));
}

}  // namespace
}  // namespace kp::actors::node_overlay
