#include "core/result.hpp"

#include <gtest/gtest.h>

namespace {

kp::result<int> parse_digit(char c) {
  if (c < '0' || c > '9') return kp::make_error("invalid_digit", std::string("not a digit: ") + c);
  return c - '0';
}

TEST(Result, AValueIsOkAndReadable) {
  auto r = parse_digit('7');
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 7);
}

TEST(Result, AnErrorCarriesItsCodeAndMessage) {
  auto r = parse_digit('x');
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "invalid_digit");
  EXPECT_EQ(r.error().message, "not a digit: x");
  EXPECT_EQ(r.value_or(-1), -1);
}

TEST(Result, AStatusIsOkUntilGivenAnError) {
  kp::status fine;
  EXPECT_TRUE(fine.ok());
  kp::status bad = kp::make_error("bad", "because");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "bad");
}

}  // namespace
