#include "protocol/proxmox/task_waiter.hpp"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>

#include <optional>
#include <vector>

namespace kp::proxmox {
namespace {

using namespace std::chrono_literals;
using clock = std::chrono::steady_clock;

task_status running() {
  return task_status{"u", "pve1", "qmclone", "101", "me", "running", ""};
}
task_status stopped(std::string exit) {
  return task_status{"u", "pve1", "qmclone", "101", "me", "stopped", std::move(exit)};
}

// Runs the waiter against a scripted sequence of poll replies; records poll times.
struct scripted {
  std::vector<result<task_status>> replies;
  std::vector<clock::time_point> polls;
  std::optional<result<task_status>> outcome;

  void run(task_wait_options options) {
    boost::asio::io_context io;
    wait_for_task(
        io,
        [this](task_status_callback reply) {
          polls.push_back(clock::now());
          std::size_t i = std::min(polls.size() - 1, replies.size() - 1);
          reply(replies[i]);
        },
        options, [this](result<task_status> r) { outcome = std::move(r); });
    io.run();  // returns once the waiter has completed: no timer is left
  }
};

TEST(TaskWaiter, ASucceedingTaskCompletesWithItsStatus) {
  scripted s;
  s.replies = {running(), running(), stopped("OK")};
  s.run({5s, 1ms, 10ms, 2.0});
  ASSERT_TRUE(s.outcome.has_value());
  ASSERT_TRUE(s.outcome->ok());
  EXPECT_EQ(s.outcome->value().exitstatus, "OK");
  EXPECT_EQ(s.polls.size(), 3u);
}

TEST(TaskWaiter, AFailedTaskIsATaskFailedErrorCarryingItsExitStatus) {
  scripted s;
  s.replies = {running(), stopped("clone failed: storage full")};
  s.run({5s, 1ms, 10ms, 2.0});
  ASSERT_TRUE(s.outcome.has_value());
  ASSERT_FALSE(s.outcome->ok());
  EXPECT_EQ(s.outcome->error().code, "task_failed");
  EXPECT_NE(s.outcome->error().message.find("clone failed: storage full"), std::string::npos);
}

TEST(TaskWaiter, PollIntervalsGrowExponentiallyUpToTheMaximum) {
  scripted s;
  s.replies = {running(), running(), running(), running(), running(), running(), stopped("OK")};
  s.run({10s, 4ms, 20ms, 2.0});
  ASSERT_TRUE(s.outcome && s.outcome->ok());
  ASSERT_EQ(s.polls.size(), 7u);
  // Expected gaps: 4, 8, 16, 20, 20, 20 ms (timers never fire early).
  std::vector<std::chrono::milliseconds> minimum{4ms, 8ms, 16ms, 20ms, 20ms, 20ms};
  for (std::size_t i = 1; i < s.polls.size(); ++i) {
    EXPECT_GE(s.polls[i] - s.polls[i - 1], minimum[i - 1]) << "gap " << i;
  }
}

TEST(TaskWaiter, AStillRunningTaskTimesOutAtTheDeadlineWithoutBusyPolling) {
  scripted s;
  s.replies = {running()};
  auto start = clock::now();
  s.run({120ms, 5ms, 40ms, 2.0});
  auto took = clock::now() - start;
  ASSERT_TRUE(s.outcome.has_value());
  ASSERT_FALSE(s.outcome->ok());
  EXPECT_EQ(s.outcome->error().code, "timeout");
  EXPECT_GE(took, 120ms);
  EXPECT_LT(took, 2s);
  // 5, 10, 20, 40, 40 ms ... reach 120 ms in about 6 polls plus the last one at the deadline.
  EXPECT_LE(s.polls.size(), 9u);
  EXPECT_GE(s.polls.size(), 4u);
}

TEST(TaskWaiter, TransientPollErrorsAreRetriedAndOthersEndTheWait) {
  scripted transient;
  transient.replies = {make_error("host_offline", "595"), make_error("timeout", "slow"),
                       stopped("OK")};
  transient.run({5s, 1ms, 5ms, 2.0});
  ASSERT_TRUE(transient.outcome && transient.outcome->ok());

  scripted fatal;
  fatal.replies = {make_error("not_found", "no such task"), stopped("OK")};
  fatal.run({5s, 1ms, 5ms, 2.0});
  ASSERT_TRUE(fatal.outcome && !fatal.outcome->ok());
  EXPECT_EQ(fatal.outcome->error().code, "not_found");
  EXPECT_EQ(fatal.polls.size(), 1u);
}

}  // namespace
}  // namespace kp::proxmox
