#include "core/scheduling/requirements.hpp"

#include <gtest/gtest.h>

namespace {

using namespace kp::scheduling;
using kp::model::node_selector_requirement;
using op = kp::model::selector_operator;

class Requirements : public ::testing::Test {
 protected:
  requirement req(const std::string& key, op o, std::vector<std::string> values = {},
                  std::optional<int> min_values = std::nullopt) {
    auto r = make_requirement(t, node_selector_requirement{key, o, std::move(values), min_values});
    EXPECT_TRUE(r.ok());
    return *r;
  }
  requirements set(std::initializer_list<requirement> rs) {
    requirements out;
    for (const auto& r : rs) out.add(r, t);
    return out;
  }
  label_id id(const std::string& s) { return t.intern(s); }
  label_table t;
};

TEST_F(Requirements, InIntersectInKeepsCommonValues) {
  auto x = intersect(req("zone", op::in, {"a", "b"}), req("zone", op::in, {"b", "c"}), t);
  EXPECT_EQ(x.op(), op::in);
  EXPECT_EQ(x.values, std::vector<label_id>{id("b")});
}

TEST_F(Requirements, NotInAndNotInUnionTheExcludedValues) {
  auto x = intersect(req("zone", op::not_in, {"a"}), req("zone", op::not_in, {"b"}), t);
  EXPECT_EQ(x.op(), op::not_in);
  EXPECT_TRUE(x.has(id("c"), t));
  EXPECT_FALSE(x.has(id("a"), t));
  EXPECT_FALSE(x.has(id("b"), t));
}

TEST_F(Requirements, InMinusNotInIsASetDifference) {
  auto x = intersect(req("zone", op::in, {"a", "b"}), req("zone", op::not_in, {"a"}), t);
  EXPECT_EQ(x.values, std::vector<label_id>{id("b")});
}

TEST_F(Requirements, ExistsAndDoesNotExistNeverMeet) {
  auto x = intersect(req("gpu", op::exists), req("gpu", op::does_not_exist), t);
  EXPECT_TRUE(x.is_empty());
}

TEST_F(Requirements, GtBecomesAnInclusiveLowerBoundAndFiltersValues) {
  auto gt = req("cpu", op::gt, {"4"});
  EXPECT_EQ(gt.gte, 5);
  EXPECT_FALSE(gt.has(id("4"), t));
  EXPECT_TRUE(gt.has(id("5"), t));
  EXPECT_FALSE(gt.has(id("many"), t));
  auto x = intersect(req("cpu", op::in, {"2", "4", "8", "16"}), gt, t);
  EXPECT_EQ(x.values, (std::vector<label_id>{id("8"), id("16")}));
}

TEST_F(Requirements, LtLteAndGteAreSupported) {
  EXPECT_EQ(req("cpu", op::lt, {"4"}).lte, 3);
  EXPECT_EQ(req("cpu", op::lte, {"4"}).lte, 4);
  EXPECT_EQ(req("cpu", op::gte, {"4"}).gte, 4);
}

TEST_F(Requirements, CrossedBoundsAreDoesNotExist) {
  auto x = intersect(req("cpu", op::gt, {"8"}), req("cpu", op::lt, {"4"}), t);
  EXPECT_TRUE(x.is_empty());
  EXPECT_EQ(x.op(), op::does_not_exist);
}

TEST_F(Requirements, NumericOperatorsNeedOneInteger) {
  auto bad = make_requirement(t, {"cpu", op::gt, {"four"}, std::nullopt});
  EXPECT_FALSE(bad.ok());
  auto two = make_requirement(t, {"cpu", op::gt, {"1", "2"}, std::nullopt});
  EXPECT_FALSE(two.ok());
}

TEST_F(Requirements, MinValuesTakesTheLargerOfBoth) {
  auto x = intersect(req("type", op::in, {"a", "b", "c"}, 2), req("type", op::exists, {}, 3), t);
  EXPECT_EQ(x.min_values, 3);
}

TEST_F(Requirements, CompatibleNeedsEveryPodKeyDefinedUnlessWellKnownOrNegative) {
  auto node = set({req("zone", op::in, {"a"})});
  auto custom = set({req("team", op::in, {"x"})});
  auto c = node.compatible(custom, {}, t);
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(c->undefined);
  EXPECT_EQ(c->key, id("team"));
  EXPECT_FALSE(node.compatible(set({req("team", op::not_in, {"x"})}), {}, t));
  EXPECT_FALSE(node.compatible(set({req("team", op::does_not_exist)}), {}, t));
  std::vector<label_id> allow{id("team")};
  EXPECT_FALSE(node.compatible(custom, allow, t));
}

TEST_F(Requirements, CompatibleFailsOnDisjointValues) {
  auto node = set({req("zone", op::in, {"a", "b"})});
  EXPECT_FALSE(node.compatible(set({req("zone", op::in, {"b"})}), {}, t));
  auto c = node.compatible(set({req("zone", op::in, {"c"})}), {}, t);
  ASSERT_TRUE(c.has_value());
  EXPECT_FALSE(c->undefined);
}

TEST_F(Requirements, NegativeOperatorsOnBothSidesNeverConflict) {
  auto node = set({req("gpu", op::does_not_exist)});
  EXPECT_FALSE(node.intersects(set({req("gpu", op::not_in, {"x"})}), t));
  EXPECT_TRUE(node.intersects(set({req("gpu", op::in, {"x"})}), t));
}

TEST_F(Requirements, AddingTheSameKeyIntersects) {
  auto s = set({req("zone", op::in, {"a", "b"}), req("zone", op::in, {"b"})});
  ASSERT_EQ(s.items().size(), 1u);
  EXPECT_TRUE(s.get(id("zone"))->is_single());
  EXPECT_EQ(s.describe(t), "zone In [b]");
}

}  // namespace
