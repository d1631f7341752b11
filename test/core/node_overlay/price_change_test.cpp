#include "core/node_overlay/price_change.hpp"

#include <gtest/gtest.h>

namespace kp::overlays {
namespace {

TEST(PriceChange, APriceSetsTheOfferingPrice) {
  auto p = parse_price("0.125");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_DOUBLE_EQ(adjusted_price(3.0, *p), 0.125);
}

TEST(PriceChange, AnAbsoluteAdjustmentAddsOrSubtractsAndNeverGoesBelowZero) {
  EXPECT_DOUBLE_EQ(adjusted_price(1.0, *parse_price_adjustment("+0.5")), 1.5);
  EXPECT_DOUBLE_EQ(adjusted_price(1.0, *parse_price_adjustment("-.25")), 0.75);
  EXPECT_DOUBLE_EQ(adjusted_price(1.0, *parse_price_adjustment("-5")), 0.0);
}

TEST(PriceChange, APercentageAdjustmentScalesThePrice) {
  EXPECT_DOUBLE_EQ(adjusted_price(2.0, *parse_price_adjustment("+10%")), 2.2);
  EXPECT_DOUBLE_EQ(adjusted_price(2.0, *parse_price_adjustment("-25%")), 1.5);
  EXPECT_DOUBLE_EQ(adjusted_price(2.0, *parse_price_adjustment("-100%")), 0.0);
}

TEST(PriceChange, TextsOutsideTheCrdPatternsAreErrorsNamingTheField) {
  for (const char* bad : {"", "-1", "+1", "1e3", "1.", ".5", "abc", " 1", "1.2.3"}) {
    auto p = parse_price(bad);
    ASSERT_FALSE(p) << bad;
    EXPECT_EQ(p.error().code, "invalid_price");
    EXPECT_NE(p.error().message.find("spec.price"), std::string::npos);
  }
  for (const char* bad : {"", "5", "5%", "+", "-%", "+1e2", "-101%", "+1.%", "+-1", "+1%%"}) {
    auto p = parse_price_adjustment(bad);
    ASSERT_FALSE(p) << bad;
    EXPECT_NE(p.error().message.find("spec.priceAdjustment"), std::string::npos);
  }
}

}  // namespace
}  // namespace kp::overlays
