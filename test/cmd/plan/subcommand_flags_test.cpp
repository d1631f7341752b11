// The flags after `plan` and `view`: values after "=" or in the next argument, one-dash long
// names where the command accepts them, and usage errors that name the flag.
#include <gtest/gtest.h>

#include "cmd/karpenter-proxmox/plan/subcommand_flags.hpp"

namespace kp::plan {
namespace {

TEST(SubcommandFlags, AValueComesAfterEqualsOrInTheNextArgument) {
  const std::vector<std::string> args{"-f=pods.yaml", "--output", "json", "--timeout=7", "extra"};
  subcommand_flags flags(args, false);
  ASSERT_TRUE(flags.next());
  EXPECT_EQ(flags.name(), "-f");
  EXPECT_EQ(flags.value().value_or(""), "pods.yaml");
  ASSERT_TRUE(flags.next());
  EXPECT_EQ(flags.name(), "--output");
  EXPECT_EQ(flags.value().value_or(""), "json");
  ASSERT_TRUE(flags.next());
  EXPECT_EQ(flags.name(), "--timeout");
  EXPECT_EQ(flags.positive_seconds().value_or(0), 7);
  ASSERT_TRUE(flags.next());
  EXPECT_EQ(flags.name(), "extra") << "an argument without a dash is kept whole";
  EXPECT_FALSE(flags.next());
}

TEST(SubcommandFlags, OneDashLongNamesReadAsTwoDashesOnlyWhereTheCommandAcceptsThem) {
  const std::vector<std::string> args{"-once", "-interval=5", "--color", "never"};
  subcommand_flags view(args, true);
  ASSERT_TRUE(view.next());
  EXPECT_EQ(view.name(), "--once");
  ASSERT_TRUE(view.next());
  EXPECT_EQ(view.name(), "--interval");
  EXPECT_EQ(view.positive_seconds().value_or(0), 5);
  ASSERT_TRUE(view.next());
  EXPECT_EQ(view.name(), "--color");
  EXPECT_EQ(view.value().value_or(""), "never");
  EXPECT_FALSE(view.next());

  subcommand_flags plan(args, false);
  ASSERT_TRUE(plan.next());
  EXPECT_EQ(plan.name(), "-once");
}

TEST(SubcommandFlags, AMissingValueABadNumberAndAnUnknownArgumentAreUsageErrorsNamingThem) {
  const std::vector<std::string> missing{"-timeout"};
  subcommand_flags a(missing, true);
  ASSERT_TRUE(a.next());
  auto none = a.positive_seconds();
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, "usage");
  EXPECT_EQ(none.error().message, "--timeout: needs a value");

  for (const char* bad : {"--timeout=0", "--timeout=-3", "--timeout=5s", "--timeout="}) {
    const std::vector<std::string> args{bad};
    subcommand_flags f(args, false);
    ASSERT_TRUE(f.next());
    auto n = f.positive_seconds();
    ASSERT_FALSE(n.ok()) << bad;
    EXPECT_EQ(n.error().message, "--timeout \"" + std::string(bad).substr(10) +
                                     "\": expected a positive number of seconds");
  }

  const std::vector<std::string> unknown{"--once", "-x=1"};
  subcommand_flags u(unknown, true);
  ASSERT_TRUE(u.next());
  ASSERT_TRUE(u.next());
  EXPECT_EQ(u.name(), "--x");
  EXPECT_EQ(u.unknown().message, "unknown argument \"-x=1\"") << "named as it was written";
}

}  // namespace
}  // namespace kp::plan
