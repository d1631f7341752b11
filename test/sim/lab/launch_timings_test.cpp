// Clone -> Ready per VM as the lab and bench-controller-burst read it from the controller's log
// and summarise it: median and p95 of clone, configure, boot and join, per clone mode.
#include <gtest/gtest.h>

#include <string>

#include "sim/lab/launch_timings.hpp"
#include "sim/lab/quantile.hpp"
#include "sim/lab/scenario_runner.hpp"

namespace kp::lab {
namespace {

std::string line(const std::string& claim, const std::string& mode, double clone, double join) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "{\"time\":\"2026-11-26T12:00:00.000Z\",\"level\":\"info\",\"logger\":"
                "\"nodeclaim\",\"message\":\"clone to ready\",\"fields\":{\"nodeclaim\":\"%s\","
                "\"clone-mode\":\"%s\",\"clone-seconds\":\"%.3f\",\"configure-seconds\":\"0.300\","
                "\"boot-seconds\":\"0.400\",\"join-seconds\":\"%.3f\",\"total-seconds\":\"%.3f\"}}",
                claim.c_str(), mode.c_str(), clone, join, clone + 0.7 + join);
  return buf;
}

TEST(Quantile, NearestRankOfTheSortedSample) {
  EXPECT_EQ(quantile({}, 0.5), 0);
  EXPECT_EQ(quantile({3, 1, 2}, 0.5), 2);
  std::vector<double> hundred;
  for (int i = 100; i >= 1; --i) hundred.push_back(i);
  EXPECT_EQ(quantile(hundred, 0.95), 95);
  EXPECT_EQ(quantile(hundred, 0), 1);
  EXPECT_EQ(quantile(hundred, 1), 100);
}

TEST(LaunchTimings, OnlyCloneToReadyLinesOfTheControllerLogAreRead) {
  std::string log =
      "{\"time\":\"t\",\"level\":\"info\",\"logger\":\"nodeclaim\",\"message\":"
      "\"launched\",\"fields\":{\"nodeclaim\":\"a\"}}\n" +
      line("a", "linked", 1.0, 2.0) + "\n" + "not json but mentions clone to ready\n" +
      "{\"message\":\"clone to ready\",\"fields\":{\"clone-mode\":\"linked\"}}\n" +
      line("b", "full", 21.0, 2.5);  // no final newline
  auto t = parse_launch_timings(log);
  ASSERT_EQ(t.size(), 2u) << "a line without its step fields is skipped";
  EXPECT_EQ(t[0].nodeclaim, "a");
  EXPECT_EQ(t[0].clone_mode, "linked");
  EXPECT_DOUBLE_EQ(t[0].clone, 1.0);
  EXPECT_DOUBLE_EQ(t[0].configure, 0.3);
  EXPECT_DOUBLE_EQ(t[0].boot, 0.4);
  EXPECT_DOUBLE_EQ(t[0].join, 2.0);
  EXPECT_DOUBLE_EQ(t[0].total, 3.7);
  EXPECT_EQ(t[1].clone_mode, "full");
  EXPECT_DOUBLE_EQ(t[1].clone, 21.0);
}

std::vector<vm_launch_timing> twenty_linked_and_two_full() {
  std::string log;
  for (int i = 1; i <= 20; ++i)
    log += line("l" + std::to_string(i), "linked", i / 10.0, 2.0) + "\n";
  log += line("f1", "full", 21.0, 3.0) + "\n" + line("f2", "full", 23.0, 5.0) + "\n";
  return parse_launch_timings(log);
}

TEST(LaunchTimings, EachCloneModeGetsTheMedianAndP95OfEachStep) {
  auto s = summarise_launch_timings(twenty_linked_and_two_full());
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].clone_mode, "linked");
  EXPECT_EQ(s[0].vms, 20u);
  EXPECT_DOUBLE_EQ(s[0].clone.median, 1.1) << "nearest rank of 0.1 .. 2.0";
  EXPECT_DOUBLE_EQ(s[0].clone.p95, 1.9);
  EXPECT_DOUBLE_EQ(s[0].join.median, 2.0);
  EXPECT_EQ(s[1].clone_mode, "full");
  EXPECT_EQ(s[1].vms, 2u);
  EXPECT_DOUBLE_EQ(s[1].clone.median, 23.0);
  EXPECT_DOUBLE_EQ(s[1].join.p95, 5.0);
  EXPECT_DOUBLE_EQ(s[1].total.p95, 28.7);
}

TEST(LaunchTimings, TheBenchmarkPrintsKeyValueLinesPerStepAndStat) {
  auto s = summarise_launch_timings(twenty_linked_and_two_full());
  auto kv = launch_timing_key_values(s[1]);
  ASSERT_EQ(kv.size(), 11u) << "the VM count, then 5 steps x (median, p95)";
  EXPECT_EQ(kv[0], "clone_to_ready_vms{clone_mode=\"full\"}=2");
  EXPECT_EQ(kv[1],
            "clone_to_ready_seconds{clone_mode=\"full\",step=\"clone\",stat=\"median\"}=23.000");
  EXPECT_EQ(kv[2],
            "clone_to_ready_seconds{clone_mode=\"full\",step=\"clone\",stat=\"p95\"}=23.000");
  EXPECT_EQ(kv[10],
            "clone_to_ready_seconds{clone_mode=\"full\",step=\"total\",stat=\"p95\"}=28.700");
}

TEST(LabSummary, ShowsCloneToReadySplitIntoItsStepsPerCloneMode) {
  run_report report;
  report.scenario = "default";
  report.launch_timings = summarise_launch_timings(twenty_linked_and_two_full());
  auto text = report.summary();
  auto table = text.find("clone -> Ready per VM (seconds, median / p95):");
  ASSERT_NE(table, std::string::npos) << text;
  auto header = text.find("mode", table);
  for (const char* column : {"VMs", "clone", "configure", "boot", "join", "total"})
    EXPECT_NE(text.find(column, header), std::string::npos) << column;
  auto linked = text.find("    linked      20 ", table);
  ASSERT_NE(linked, std::string::npos) << text;
  EXPECT_NE(text.find("1.100 / 1.900", linked), std::string::npos) << text;
  auto full = text.find("    full         2 ", table);
  ASSERT_NE(full, std::string::npos) << text;
  EXPECT_NE(text.find("23.000 / 23.000", full), std::string::npos) << text;
}

TEST(LabSummary, HasNoTimingTableWhenNoVmWasCloned) {
  run_report report;
  report.scenario = "default";
  EXPECT_EQ(report.summary().find("clone -> Ready"), std::string::npos);
}

}  // namespace
}  // namespace kp::lab
