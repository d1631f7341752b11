#include "actors/shared_instance_types.hpp"

#include <gtest/gtest.h>

#include "actors/controller_context.hpp"
#include "core/instance_types/instance_type.hpp"

namespace kp::actors {
namespace {

TEST(SharedInstanceTypes, CopiesOfAContextReadTheSameListWithoutCopyingIt) {
  controller_context a;
  a.instance_types = instance_types::builtin_instance_types();
  controller_context b = a;
  ASSERT_FALSE(a.instance_types.empty());
  EXPECT_EQ(&a.instance_types.get(), &b.instance_types.get());
  const std::vector<instance_types::instance_type>& read = b.instance_types;
  EXPECT_EQ(read, instance_types::builtin_instance_types());
}

TEST(SharedInstanceTypes, AssigningAListToOneCopyLeavesTheOthersAsTheyWere) {
  controller_context a;
  a.instance_types = instance_types::builtin_instance_types();
  controller_context b = a;
  b.instance_types = std::vector<instance_types::instance_type>{a.instance_types.get().front()};
  EXPECT_EQ(b.instance_types.size(), 1u);
  EXPECT_EQ(a.instance_types.size(), instance_types::builtin_instance_types().size());
}

TEST(SharedInstanceTypes, AContextWithoutTypesHoldsAnEmptyList) {
  controller_context a;
  EXPECT_TRUE(a.instance_types.empty());
  EXPECT_EQ(a.instance_types.begin(), a.instance_types.end());
}

}  // namespace
}  // namespace kp::actors
