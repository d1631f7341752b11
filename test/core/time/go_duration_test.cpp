#include "core/time/go_duration.hpp"

#include <gtest/gtest.h>

namespace kp::time {
namespace {

using namespace std::chrono_literals;

TEST(GoDuration, ParsesEveryUnitAndCombinations) {
  EXPECT_EQ(*parse_go_duration("300ms"), 300ms);
  EXPECT_EQ(*parse_go_duration("1m30s"), 90s);
  EXPECT_EQ(*parse_go_duration("2h45m"), 165min);
  EXPECT_EQ(*parse_go_duration("1.5h"), 90min);
  EXPECT_EQ(*parse_go_duration("10us"), 10us);
  EXPECT_EQ(*parse_go_duration("10\xc2\xb5s"), 10us);
  EXPECT_EQ(*parse_go_duration("7ns"), 7ns);
  EXPECT_EQ(*parse_go_duration("-1m"), -1min);
  EXPECT_EQ(*parse_go_duration("0"), 0ns);
  EXPECT_EQ(*parse_go_duration("720h"), 720h);
  EXPECT_EQ(*parse_go_duration("0.1s"), 100ms) << "fractions are exact for decimal inputs";
  EXPECT_EQ(*parse_go_duration(".5s"), 500ms);
}

TEST(GoDuration, RejectsMissingUnitsUnknownUnitsAndOverflowNamingTheText) {
  for (const char* bad : {"", "10", "1d", "m", "1.m5", "abc", "1h-", "9999999999999h"}) {
    auto r = parse_go_duration(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code, "invalid_duration");
    EXPECT_NE(r.error().message.find(std::string("\"") + bad + "\""), std::string::npos)
        << r.error().message;
  }
}

TEST(GoDuration, FormatsAsGoDoes) {
  EXPECT_EQ(format_go_duration(0s), "0s");
  EXPECT_EQ(format_go_duration(90s), "1m30s");
  EXPECT_EQ(format_go_duration(15min), "15m0s");
  EXPECT_EQ(format_go_duration(720h), "720h0m0s");
  EXPECT_EQ(format_go_duration(1500ms), "1.5s");
  EXPECT_EQ(format_go_duration(500ms), "500ms");
  EXPECT_EQ(format_go_duration(-2s), "-2s");
}

}  // namespace
}  // namespace kp::time
