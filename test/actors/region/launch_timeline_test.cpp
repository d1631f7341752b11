// The step durations a launch's reply carries, from the moments its steps ended.
#include <gtest/gtest.h>

#include "actors/region/launch_timeline.hpp"

namespace kp::actors::region {
namespace {

using namespace std::chrono_literals;

launch_timeline::time_point at(std::chrono::milliseconds ms) {
  return launch_timeline::time_point{} + ms;
}

TEST(LaunchTimeline, EachStepRunsFromTheEndOfTheOneBefore) {
  launch_timeline t{at(1000ms), at(2500ms), at(2800ms), at(3200ms), true};
  auto s = step_times(t, at(3250ms));
  EXPECT_TRUE(s.measured);
  EXPECT_TRUE(s.full_clone);
  EXPECT_EQ(s.clone_us, 1'500'000);
  EXPECT_EQ(s.configure_us, 300'000);
  EXPECT_EQ(s.boot_us, 400'000);
  EXPECT_EQ(s.after_boot_us, 50'000);
}

TEST(LaunchTimeline, ALaunchWithoutItsCloneMomentIsNotMeasured) {
  launch_timeline t{std::nullopt, at(2500ms), at(2800ms), at(3200ms), false};
  EXPECT_FALSE(step_times(t, at(3200ms)).measured);
}

TEST(LaunchTimeline, ALaunchThatNeverStartedIsNotMeasured) {
  launch_timeline t{at(1000ms), at(2500ms), at(2800ms), std::nullopt, false};
  EXPECT_FALSE(step_times(t, at(3200ms)).measured);
}

TEST(LaunchTimeline, MomentsOutOfOrderAreNotMeasured) {
  launch_timeline t{at(1000ms), at(900ms), at(2800ms), at(3200ms), false};
  EXPECT_FALSE(step_times(t, at(3200ms)).measured);
  launch_timeline late{at(1000ms), at(2000ms), at(2800ms), at(3200ms), false};
  EXPECT_FALSE(step_times(late, at(3100ms)).measured) << "answered before it started";
}

}  // namespace
}  // namespace kp::actors::region
