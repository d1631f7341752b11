#include "core/disruption/budget.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace kp::disruption {
namespace {

using namespace std::chrono;

sys_seconds at(int h, int mi) {
  return sys_days(year(2026) / 11 / 23) + hours(h) + minutes(mi);
}

budget parse(budget_spec spec) {
  auto b = parse_budget(spec, "spec.disruption.budgets[0]");
  EXPECT_TRUE(b.ok()) << (b.ok() ? "" : b.error().message);
  return b.ok() ? *b : budget{};
}

constexpr int unlimited = std::numeric_limits<std::int32_t>::max();

TEST(Budget, PercentagesRoundUp) {
  auto b = parse({"5%", {}, {}, {}});
  EXPECT_EQ(allowed_by(b, reason::empty, 10, at(0, 0)), 1);
  EXPECT_EQ(allowed_by(b, reason::empty, 0, at(0, 0)), 0);
  auto thirty = parse({"30%", {}, {}, {}});
  EXPECT_EQ(allowed_by(thirty, reason::empty, 10, at(0, 0)), 3);
  EXPECT_EQ(allowed_by(thirty, reason::empty, 11, at(0, 0)), 4);
}

TEST(Budget, CountsAreAbsolute) {
  auto b = parse({"3", {}, {}, {}});
  EXPECT_EQ(allowed_by(b, reason::drifted, 100, at(0, 0)), 3);
}

TEST(Budget, TheDefaultIsTenPercentForEveryReason) {
  EXPECT_EQ(allowed_disruptions(default_budgets(), reason::underutilized, 20, 0, at(0, 0)), 2);
}

TEST(Budget, AScheduledBudgetAppliesOnlyInsideItsWindow) {
  // Nothing may be disrupted 09:00-17:00 UTC on weekdays (2026-11-23 is a Monday).
  auto b = parse({"0", std::string("0 9 * * MON-FRI"), std::string("8h"), {}});
  EXPECT_EQ(allowed_by(b, reason::empty, 10, at(8, 59)), unlimited);
  EXPECT_EQ(allowed_by(b, reason::empty, 10, at(9, 0)), 0);
  EXPECT_EQ(allowed_by(b, reason::empty, 10, at(16, 59)), 0);
  EXPECT_EQ(allowed_by(b, reason::empty, 10, at(17, 0)), unlimited);
}

TEST(Budget, ABudgetForOtherReasonsDoesNotLimitThisOne) {
  auto b = parse({"0", {}, {}, {"Drifted"}});
  EXPECT_EQ(allowed_by(b, reason::drifted, 10, at(0, 0)), 0);
  EXPECT_EQ(allowed_by(b, reason::empty, 10, at(0, 0)), unlimited);
}

TEST(Budget, TheMostRestrictiveBudgetWinsAndDisruptingNodesCount) {
  std::vector<budget> budgets{parse({"30%", {}, {}, {}}), parse({"2", {}, {}, {"Empty"}})};
  EXPECT_EQ(allowed_disruptions(budgets, reason::empty, 10, 0, at(0, 0)), 2);
  EXPECT_EQ(allowed_disruptions(budgets, reason::drifted, 10, 0, at(0, 0)), 3);
  EXPECT_EQ(allowed_disruptions(budgets, reason::drifted, 10, 2, at(0, 0)), 1);
  EXPECT_EQ(allowed_disruptions(budgets, reason::drifted, 10, 5, at(0, 0)), 0);
}

TEST(Budget, AMisconfiguredBudgetFailsClosed) {
  budget b;
  b.misconfigured = true;
  EXPECT_EQ(allowed_by(b, reason::empty, 10, at(0, 0)), 0);
}

TEST(Budget, InvalidFieldsAreNamedInTheError) {
  struct bad_case {
    budget_spec spec;
    const char* field;
  };
  for (const auto& c : std::vector<bad_case>{
           {{"101%", {}, {}, {}}, "budgets[0].nodes"},
           {{"ten", {}, {}, {}}, "budgets[0].nodes"},
           {{"-1", {}, {}, {}}, "budgets[0].nodes"},
           {{"1", std::string("@daily"), {}, {}}, "schedule and duration must be set together"},
           {{"1", std::string("61 * * * *"), std::string("1h"), {}}, "budgets[0].schedule"},
           {{"1", std::string("@daily"), std::string("30s"), {}}, "budgets[0].duration"},
           {{"1", {}, {}, {"Expired"}}, "budgets[0].reasons[0]"},
       }) {
    auto r = parse_budget(c.spec, "spec.disruption.budgets[0]");
    ASSERT_FALSE(r.ok()) << c.field;
    EXPECT_NE(r.error().message.find(c.field), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace kp::disruption
