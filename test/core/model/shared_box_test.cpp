#include "core/model/shared_box.hpp"

#include <string>

#include <gtest/gtest.h>

#include "core/model/resource_list.hpp"

namespace kp::model {
namespace {

TEST(SharedBox, HoldsNothingWhileTheValueIsItsDefault) {
  shared_box<std::string> name;
  EXPECT_TRUE(name.empty());
  EXPECT_EQ(name.get(), "");
  name = "";
  EXPECT_TRUE(name.empty()) << "assigning the default allocates nothing";
  name = "system-node-critical";
  EXPECT_FALSE(name.empty());
  EXPECT_EQ(name, "system-node-critical");
  name = std::string();
  EXPECT_TRUE(name.empty());
  EXPECT_EQ(sizeof(name), sizeof(void*));
}

TEST(SharedBox, ACopySharesTheValueUntilOneOfThemIsChanged) {
  shared_box<resource_list> a;
  a.edit().set("cpu", quantity::from_milli(50));
  shared_box<resource_list> b = a;
  EXPECT_EQ(&a.get(), &b.get()) << "one value for both copies";
  b.edit().set("memory", quantity::from_milli(1000));
  EXPECT_NE(&a.get(), &b.get());
  EXPECT_FALSE(a.get().has("memory"));
  EXPECT_EQ(b.get().milli("cpu"), 50);
  EXPECT_NE(a, b);
  b.edit().items().erase("memory");
  EXPECT_EQ(a, b) << "equal values compare equal whether shared or not";
  const resource_list& read = a;  // reads as the value it holds
  EXPECT_EQ(read.milli("cpu"), 50);
}

}  // namespace
}  // namespace kp::model
