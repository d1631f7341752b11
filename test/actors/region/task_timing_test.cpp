#include "actors/region/task_timing.hpp"

#include <gtest/gtest.h>

namespace kp::actors::region {
namespace {

using namespace std::chrono_literals;

TEST(TaskTiming, AKindOfTaskNeverSeenIsPolledAtOnce) {
  task_timing t(20ms, 10s);
  EXPECT_EQ(t.first_poll("qmclone", "pve1"), 0ms);
  EXPECT_FALSE(t.typical("qmclone", "pve1").has_value());
}

TEST(TaskTiming, TheFirstPollGoesOutWhenTasksOfThatTypeOnThatHostUsuallyEnd) {
  task_timing t(20ms, 10s);
  // Still running at 4 s, done at 6 s: it ended at about 5 s.
  t.observe("qmclone", "pve1", 4000ms, 6000ms);
  EXPECT_EQ(t.first_poll("qmclone", "pve1"), 5000ms);
  EXPECT_EQ(t.first_poll("qmclone", "pve2"), 0ms) << "learnt per host";
  EXPECT_EQ(t.first_poll("qmstart", "pve1"), 0ms) << "learnt per task type";
}

TEST(TaskTiming, OneSlowTaskMovesTheEstimateOnlyPartly) {
  task_timing t(20ms, 60s);
  t.observe("qmclone", "pve1", 4000ms, 6000ms);    // about 5 s
  t.observe("qmclone", "pve1", 29000ms, 31000ms);  // one of 30 s
  auto typical = t.typical("qmclone", "pve1");
  ASSERT_TRUE(typical.has_value());
  EXPECT_GT(*typical, 5000ms);
  EXPECT_LT(*typical, 15000ms);
}

TEST(TaskTiming, ATaskDoneAtItsFirstPollMakesTheNextFirstPollEarlierDownToTheFloor) {
  task_timing t(20ms, 10s);
  t.observe("qmconfig", "pve1", std::nullopt, 1000ms);
  auto before = t.first_poll("qmconfig", "pve1");
  EXPECT_LT(before, 1000ms);
  for (int i = 0; i < 50; ++i)
    t.observe("qmconfig", "pve1", std::nullopt, t.first_poll("qmconfig", "pve1"));
  EXPECT_EQ(t.first_poll("qmconfig", "pve1"), 20ms);
}

TEST(TaskTiming, TheFirstPollNeverWaitsLongerThanTheCap) {
  task_timing t(20ms, 10s);
  t.observe("qmclone", "pve1", 100s, 120s);
  EXPECT_EQ(t.first_poll("qmclone", "pve1"), 10s);
}

}  // namespace
}  // namespace kp::actors::region
