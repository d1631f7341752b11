#include "core/model/compact_optional.hpp"

#include <cstdint>
#include <limits>
#include <optional>

#include <gtest/gtest.h>

namespace kp::model {
namespace {

TEST(CompactOptional, IsEightBytesAndReadsAsTheOptionalItStandsFor) {
  EXPECT_EQ(sizeof(compact_optional_int64), 8u);
  compact_optional_int64 none;
  EXPECT_FALSE(none.has_value());
  EXPECT_FALSE(none);
  EXPECT_EQ(none.value_or(7), 7);
  EXPECT_EQ(std::optional<std::int64_t>(none), std::nullopt);

  compact_optional_int64 zero = 0;
  EXPECT_TRUE(zero.has_value());
  EXPECT_EQ(*zero, 0);
  EXPECT_EQ(zero, std::optional<std::int64_t>(0));
  EXPECT_NE(zero, none);

  const std::int64_t lowest_kept = std::numeric_limits<std::int64_t>::min() + 1;
  compact_optional_int64 low = std::optional<std::int64_t>(lowest_kept);
  EXPECT_EQ(*low, lowest_kept);
  EXPECT_EQ(std::optional<std::int64_t>(low), lowest_kept);
  low.reset();
  EXPECT_FALSE(low.has_value());

  compact_optional_int64 from_none = std::optional<std::int64_t>();
  EXPECT_EQ(from_none, none);
  from_none = 1735787345000;
  EXPECT_EQ(from_none, std::optional<std::int64_t>(1735787345000));
}

}  // namespace
}  // namespace kp::model
