// The reason pattern of metav1.Condition as the controller checks it at compile time, and the
// list of reasons: unique and each one valid.
#include <gtest/gtest.h>

#include <set>

#include "actors/condition_reasons.hpp"

namespace kp::actors {
namespace {

TEST(ConditionReasons, ThePatternIsMetav1Conditions) {
  for (const char* good : {"Ready", "a", "NodeClassNotFound", "Foo_Bar", "Foo,Bar:Baz_", "X9"}) {
    EXPECT_TRUE(valid_condition_reason(good)) << good;
  }
  for (const char* bad :
       {"", "9Ready", "_Ready", "Not Ready", "Ready:", "Ready,", "Ready-1", "Réady", "Ready."}) {
    EXPECT_FALSE(valid_condition_reason(bad)) << bad;
  }
  EXPECT_FALSE(valid_condition_reason(std::string(1025, 'a')));
}

TEST(ConditionReasons, EveryListedReasonIsValidAndListedOnce) {
  std::set<std::string_view> seen;
  for (auto r : condition_reasons) {
    EXPECT_TRUE(valid_condition_reason(r)) << r;
    EXPECT_TRUE(seen.insert(r).second) << r << " is listed twice";
  }
  constexpr condition_reason ready = "Ready";
  EXPECT_EQ(ready.view(), "Ready");
  EXPECT_EQ(ready.str(), "Ready");
}

}  // namespace
}  // namespace kp::actors
