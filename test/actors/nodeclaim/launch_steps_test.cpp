// A VM's clone -> Ready by step: the region's three steps and the join, as the metric and the
// "clone to ready" log line show them.
#include <gtest/gtest.h>

#include <prometheus/registry.h>

#include "actors/nodeclaim/launch_steps.hpp"

namespace kp::actors::nodeclaim {
namespace {

using namespace std::chrono_literals;

protocol::launch_step_times region_steps(bool full) {
  protocol::launch_step_times t;
  t.measured = true;
  t.full_clone = full;
  t.clone_us = 21'000'000;
  t.configure_us = 300'000;
  t.boot_us = 400'000;
  t.after_boot_us = 250'000;
  return t;
}

std::string field(const obs::log_fields& fields, const std::string& key) {
  for (const auto& f : fields)
    if (f.key == key) return f.value;
  return "(missing)";
}

TEST(LaunchSteps, TheJoinRunsFromTheStartToInitializedAndTheTotalIsTheSumOfTheSteps) {
  auto s = steps_to_ready(region_steps(true), 2s);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->clone_mode, "full");
  EXPECT_DOUBLE_EQ(s->clone, 21.0);
  EXPECT_DOUBLE_EQ(s->configure, 0.3);
  EXPECT_DOUBLE_EQ(s->boot, 0.4);
  EXPECT_DOUBLE_EQ(s->join, 2.25) << "a guest-agent join before the answer counts as join";
  EXPECT_DOUBLE_EQ(s->total(), 23.95);
}

TEST(LaunchSteps, ALaunchTheRegionDidNotMeasureGivesNoSteps) {
  auto t = region_steps(false);
  t.measured = false;
  EXPECT_FALSE(steps_to_ready(t, 2s).has_value());
  EXPECT_FALSE(steps_to_ready(region_steps(false), -1ms).has_value());
}

TEST(LaunchSteps, TheLogLineNamesTheClaimTheCloneModeAndEachStepInSeconds) {
  auto s = steps_to_ready(region_steps(false), 2s);
  ASSERT_TRUE(s.has_value());
  auto fields = launch_step_fields("default-abc12", *s);
  EXPECT_EQ(field(fields, "nodeclaim"), "default-abc12");
  EXPECT_EQ(field(fields, "clone-mode"), "linked");
  EXPECT_EQ(field(fields, "clone-seconds"), "21.000");
  EXPECT_EQ(field(fields, "configure-seconds"), "0.300");
  EXPECT_EQ(field(fields, "boot-seconds"), "0.400");
  EXPECT_EQ(field(fields, "join-seconds"), "2.250");
  EXPECT_EQ(field(fields, "total-seconds"), "23.950");
}

TEST(LaunchStepMetric, EachStepIsObservedUnderItsStepAndCloneModeAndTheTotalApart) {
  prometheus::Registry registry;
  obs::karpenter_metrics m(registry);
  observe_launch_steps(m, *steps_to_ready(region_steps(true), 2s));
  observe_launch_steps(m, *steps_to_ready(region_steps(true), 4s));
  observe_launch_steps(m, *steps_to_ready(region_steps(false), 1s));
  auto series = [&](const std::string& step, const std::string& mode) {
    return m.launch_step_duration
        .Add({{"step", step}, {"clone_mode", mode}}, obs::duration_buckets())
        .Collect()
        .histogram;
  };
  EXPECT_EQ(series("clone", "full").sample_count, 2u);
  EXPECT_DOUBLE_EQ(series("clone", "full").sample_sum, 42.0);
  EXPECT_DOUBLE_EQ(series("configure", "full").sample_sum, 0.6);
  EXPECT_DOUBLE_EQ(series("boot", "full").sample_sum, 0.8);
  EXPECT_DOUBLE_EQ(series("join", "full").sample_sum, 2.25 + 4.25);
  EXPECT_EQ(series("join", "linked").sample_count, 1u);
  EXPECT_DOUBLE_EQ(series("join", "linked").sample_sum, 1.25);
  auto total = [&](const std::string& mode) {
    return m.clone_to_ready_duration.Add({{"clone_mode", mode}}, obs::duration_buckets())
        .Collect()
        .histogram;
  };
  EXPECT_EQ(total("full").sample_count, 2u);
  EXPECT_DOUBLE_EQ(total("full").sample_sum, 23.95 + 25.95);
  EXPECT_EQ(total("linked").sample_count, 1u);
  // A step's family holds the four steps only: the total is not a step, so sums add up.
  for (const auto& family : m.launch_step_duration.Collect()) {
    for (const auto& metric : family.metric) {
      for (const auto& label : metric.label) {
        if (label.name == "step") {
          EXPECT_TRUE(label.value == "clone" || label.value == "configure" ||
                      label.value == "boot" || label.value == "join")
              << label.value;
        }
      }
    }
  }
}

}  // namespace
}  // namespace kp::actors::nodeclaim
