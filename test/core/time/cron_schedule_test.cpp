#include "core/time/cron_schedule.hpp"

#include <gtest/gtest.h>

namespace kp::time {
namespace {

using namespace std::chrono;

sys_seconds at(int y, unsigned mo, unsigned d, int h, int mi) {
  return sys_days(year(y) / month(mo) / day(d)) + hours(h) + minutes(mi);
}

sys_seconds next(const char* spec, sys_seconds from) {
  auto c = cron_schedule::parse(spec);
  EXPECT_TRUE(c.ok()) << spec;
  auto n = c->next_after(from);
  EXPECT_TRUE(n.has_value()) << spec;
  return n.value_or(sys_seconds{});
}

TEST(CronSchedule, NextIsStrictlyAfterTheGivenTime) {
  EXPECT_EQ(next("0 9 * * *", at(2026, 11, 22, 9, 0)), at(2026, 11, 23, 9, 0));
  EXPECT_EQ(next("0 9 * * *", at(2026, 11, 22, 8, 59)), at(2026, 11, 22, 9, 0));
}

TEST(CronSchedule, StepsRangesListsAndNames) {
  EXPECT_EQ(next("*/15 * * * *", at(2026, 1, 1, 0, 1)), at(2026, 1, 1, 0, 15));
  EXPECT_EQ(next("0 8-10/2 * * *", at(2026, 1, 1, 8, 30)), at(2026, 1, 1, 10, 0));
  EXPECT_EQ(next("30 1,13 * * *", at(2026, 1, 1, 2, 0)), at(2026, 1, 1, 13, 30));
  EXPECT_EQ(next("0 0 1 MAR *", at(2026, 1, 15, 0, 0)), at(2026, 3, 1, 0, 0));
  // 2026-11-22 is a Sunday; the next Monday is the 23rd.
  EXPECT_EQ(next("0 0 * * MON", at(2026, 11, 22, 12, 0)), at(2026, 11, 23, 0, 0));
  EXPECT_EQ(next("0 0 * * 7", at(2026, 11, 21, 12, 0)), at(2026, 11, 22, 0, 0)) << "7 is Sunday";
}

TEST(CronSchedule, MacrosExpandToTheirSchedules) {
  EXPECT_EQ(next("@daily", at(2026, 5, 5, 5, 5)), at(2026, 5, 6, 0, 0));
  EXPECT_EQ(next("@hourly", at(2026, 5, 5, 5, 5)), at(2026, 5, 5, 6, 0));
  EXPECT_EQ(next("@monthly", at(2026, 5, 5, 5, 5)), at(2026, 6, 1, 0, 0));
  EXPECT_EQ(next("@yearly", at(2026, 5, 5, 5, 5)), at(2027, 1, 1, 0, 0));
  EXPECT_EQ(next("@weekly", at(2026, 11, 22, 0, 0)), at(2026, 11, 29, 0, 0));
}

TEST(CronSchedule, DayOfMonthAndDayOfWeekCombineByOrWhenBothAreRestricted) {
  // The 1st of the month or any Friday: from Sun 2026-11-22 the next is Fri 2026-11-27.
  EXPECT_EQ(next("0 0 1 * FRI", at(2026, 11, 22, 0, 0)), at(2026, 11, 27, 0, 0));
  // Only the day of month restricted: Fridays do not count.
  EXPECT_EQ(next("0 0 1 * *", at(2026, 11, 22, 0, 0)), at(2026, 12, 1, 0, 0));
}

TEST(CronSchedule, LeapDaysAreFoundAndImpossibleDatesNeverFire) {
  EXPECT_EQ(next("0 0 29 2 *", at(2026, 3, 1, 0, 0)), at(2028, 2, 29, 0, 0));
  auto never = cron_schedule::parse("0 0 30 2 *");
  ASSERT_TRUE(never.ok());
  EXPECT_FALSE(never->next_after(at(2026, 1, 1, 0, 0)).has_value());
}

TEST(CronSchedule, MalformedSchedulesAreErrorsThatNameTheProblem) {
  for (const char* bad : {"", "* * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * * 13 *",
                          "* * * * 8", "*/0 * * * *", "a b c d e", "@fortnightly", "5-1 * * * *"}) {
    auto c = cron_schedule::parse(bad);
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_EQ(c.error().code, "invalid_cron");
    EXPECT_FALSE(c.error().message.empty());
  }
}

}  // namespace
}  // namespace kp::time
