#include "core/boxed_optional.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace {

using kp::boxed_optional;

TEST(BoxedOptional, StartsEmptyAndTakesAValueAsOptionalDoes) {
  boxed_optional<std::string> box;
  EXPECT_FALSE(box.has_value());
  EXPECT_FALSE(box);
  EXPECT_EQ(box.value_or("fallback"), "fallback");

  box = std::string("config");
  ASSERT_TRUE(box);
  EXPECT_EQ(*box, "config");
  EXPECT_EQ(box->size(), 6u);
  EXPECT_EQ(box.value_or("fallback"), "config");

  box = std::nullopt;
  EXPECT_FALSE(box);
}

TEST(BoxedOptional, CopiesOwnTheirValueAndMovesLeaveTheSourceEmpty) {
  boxed_optional<std::string> a = std::string("one");
  boxed_optional<std::string> copy = a;
  copy->append("-changed");
  EXPECT_EQ(*a, "one");  // a copy is a deep copy, never a shared value
  EXPECT_EQ(*copy, "one-changed");

  const auto* held = &*a;
  boxed_optional<std::string> moved = std::move(a);
  EXPECT_EQ(&*moved, held);  // the value itself did not move
  EXPECT_FALSE(a);           // NOLINT(bugprone-use-after-move): the source is empty, as documented

  copy = moved;
  EXPECT_EQ(*copy, "one");
  EXPECT_NE(&*copy, &*moved);
  const auto& same = copy;
  copy = same;  // self-assignment keeps the value
  EXPECT_EQ(*copy, "one");
}

TEST(BoxedOptional, AssigningAValueReusesTheBoxAndEqualityComparesValues) {
  boxed_optional<std::string> box = std::string("first");
  const auto* held = &*box;
  box = std::string("second");
  EXPECT_EQ(&*box, held);
  EXPECT_EQ(*box, "second");

  EXPECT_TRUE(box == boxed_optional<std::string>(std::string("second")));
  EXPECT_FALSE(box == boxed_optional<std::string>(std::string("other")));
  EXPECT_FALSE(box == boxed_optional<std::string>());
  EXPECT_TRUE(boxed_optional<std::string>() == boxed_optional<std::string>());
  box.reset();
  EXPECT_FALSE(box);
}

}  // namespace
