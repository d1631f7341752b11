#include "core/placement/cpu_set.hpp"

#include <gtest/gtest.h>

namespace kp::placement {
namespace {

TEST(CpuSet, ParsesRangesAndSinglesInAnyOrder) {
  auto s = cpu_set::parse("8-11,0-3,5");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->size(), 9);
  EXPECT_EQ(s->to_string(), "0-3,5,8-11");
}

TEST(CpuSet, AcceptsTheSemicolonSeparatorOfNumaEntries) {
  auto s = cpu_set::parse("0-3;8-11");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->to_string(';'), "0-3;8-11");
}

TEST(CpuSet, RejectsGarbageWithTheOffendingText) {
  auto s = cpu_set::parse("0-3,x");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, "invalid_cpu_list");
  EXPECT_NE(s.error().message.find("\"x\""), std::string::npos);
  EXPECT_FALSE(cpu_set::parse("5-2").ok());
  EXPECT_FALSE(cpu_set::parse("99999999").ok());
}

TEST(CpuSet, SetOperationsFollowSetSemantics) {
  auto a = cpu_set::range(0, 7), b = cpu_set::range(4, 11);
  EXPECT_EQ((a & b).to_string(), "4-7");
  EXPECT_EQ((a | b).to_string(), "0-11");
  EXPECT_EQ((a - b).to_string(), "0-3");
  EXPECT_TRUE(a.intersects(b));
  EXPECT_FALSE((a - b).intersects(b));
  EXPECT_TRUE(cpu_set::parse("").ok());
  EXPECT_TRUE(cpu_set::parse("")->empty());
}

}  // namespace
}  // namespace kp::placement
