#include "core/model/taint.hpp"

#include <gtest/gtest.h>

#include "core/model/label_selector.hpp"

namespace {

using namespace kp::model;

TEST(Tolerations, EqualNeedsKeyValueAndEffect) {
  taint t{"dedicated", "gpu", "NoSchedule"};
  EXPECT_TRUE(tolerates({"dedicated", "Equal", "gpu", "NoSchedule", {}}, t));
  EXPECT_TRUE(tolerates({"dedicated", "", "gpu", "", {}}, t));
  EXPECT_FALSE(tolerates({"dedicated", "Equal", "cpu", "NoSchedule", {}}, t));
  EXPECT_FALSE(tolerates({"dedicated", "Equal", "gpu", "NoExecute", {}}, t));
}

TEST(Tolerations, ExistsWithAnEmptyKeyToleratesEverything) {
  EXPECT_TRUE(tolerates({"", "Exists", "", "", {}}, {"a", "b", "NoExecute"}));
  EXPECT_TRUE(tolerates({"a", "Exists", "", "", {}}, {"a", "b", "NoSchedule"}));
}

TEST(Tolerations, PreferNoScheduleNeverBlocks) {
  std::vector<taint> taints{{"soft", "", "PreferNoSchedule"}};
  EXPECT_EQ(first_untolerated({}, taints), nullptr);
  taints.push_back({"hard", "", "NoSchedule"});
  ASSERT_NE(first_untolerated({}, taints), nullptr);
  EXPECT_EQ(first_untolerated({}, taints)->key, "hard");
}

TEST(LabelSelectors, MatchLabelsAndExpressions) {
  label_selector s;
  s.match_labels = {{"app", "web"}};
  s.match_expressions = {{"tier", selector_operator::in, {"a", "b"}}};
  EXPECT_TRUE(matches(s, {{"app", "web"}, {"tier", "a"}}));
  EXPECT_FALSE(matches(s, {{"app", "web"}, {"tier", "c"}}));
  EXPECT_FALSE(matches(s, {{"tier", "a"}}));
  EXPECT_TRUE(matches(label_selector{}, {{"x", "y"}}));
}

}  // namespace
