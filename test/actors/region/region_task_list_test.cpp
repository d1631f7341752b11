// Task waits that share one GET /cluster/tasks read per poll round, in virtual time over the
// in-memory Proxmox: a burst of launches reads far fewer times than one status poll per look, a
// task the list leaves out is polled on its own, a failed task is still named with its error, and
// a list Proxmox refuses is not asked again.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actors/region/region_actor.hpp"
#include "test/actors/region/region_actor_fixture.hpp"

namespace kp::actors::region {
namespace {

using namespace std::chrono_literals;
using namespace kp::protocol;

class RegionTaskList : public region_actor_fixture {
 protected:
  RegionTaskList() : region_actor_fixture(4) {}

  region_settings settings(bool cluster_task_list) {
    auto s = quiet_settings();
    s.cluster_task_list = cluster_task_list;
    s.task_list_gather = region_settings{}.task_list_gather;  // the default window
    return s;
  }

  // Launches `n` NodeClaims at once and waits for every reply; all must succeed.
  void burst(region_actor a, const std::string& prefix, int n) {
    std::vector<std::shared_ptr<std::optional<launch_reply>>> replies;
    for (int i = 0; i < n; ++i)
      replies.push_back(
          ask<launch_reply>(a, launch_atom::value, request(prefix + std::to_string(i))));
    for (auto& r : replies) {
      auto reply = await(r);
      EXPECT_TRUE(reply.ok) << reply.error.code << ": " << reply.error.message;
    }
  }
};

TEST_F(RegionTaskList, ABurstOfLaunchesReadsTheirTasksFarLessOftenThroughTheClusterList) {
  pve->task_durations["qmclone"] = 3s;
  pve->task_durations["qmstart"] = 500ms;
  auto own = spawn(settings(false));
  pve->reset_counts();
  burst(own, "own-", 8);
  const int own_polls = pve->task_reads();
  EXPECT_EQ(pve->calls["cluster_tasks"], 0) << "switched off: every wait polls its own task";

  auto shared = spawn(settings(true));
  pve->reset_counts();
  burst(shared, "shared-", 8);
  const int shared_reads = pve->task_reads();
  EXPECT_GT(pve->calls["cluster_tasks"], 0);
  EXPECT_EQ(pve->calls["task_status"], 0) << "the list named every task";
  // 8 launches x 4 tasks, each looked at several times through a 3 s clone: one list read per
  // round answers all of them.
  EXPECT_LE(shared_reads * 3, own_polls)
      << "own polls " << own_polls << ", shared reads " << shared_reads;
}

TEST_F(RegionTaskList, ATaskTheListLeavesOutIsPolledOnItsOwn) {
  pve->unlisted_task_types = {"qmclone"};  // as if dropped past the host's 25 finished tasks
  auto a = spawn(settings(true));
  pve->reset_counts();
  auto r = launch(a, request("claim-unlisted"));
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(pve->vms.at(r.vmid).status, "running");
  EXPECT_EQ(pve->calls["task_status"], 1) << "only the clone, which the list does not name";
  EXPECT_GE(pve->calls["cluster_tasks"], 1);
}

TEST_F(RegionTaskList, AFailedTaskTheListNamesStillReportsItsError) {
  pve->task_outcomes["qmclone"] = kp::test::fake_proxmox::task_outcome::fail;
  auto a = spawn(settings(true));
  pve->reset_counts();
  auto r = launch(a, request("claim-failing"));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.message.find("qmclone"), std::string::npos) << r.error.message;
  EXPECT_NE(r.error.message.find("injected task failure"), std::string::npos) << r.error.message;
  EXPECT_EQ(pve->calls["task_status"], 0) << "the list answered the wait";
}

TEST_F(RegionTaskList, AListProxmoxRefusesIsNotReadAgainAndEachWaitPollsItsOwnTask) {
  pve->fail_next("cluster_tasks", make_error("forbidden", "403 Permission check failed"));
  auto a = spawn(settings(true));
  pve->reset_counts();
  auto r = launch(a, request("claim-refused"));
  ASSERT_TRUE(r.ok) << r.error.message;
  auto again = launch(a, request("claim-refused-2"));
  ASSERT_TRUE(again.ok) << again.error.message;
  EXPECT_EQ(pve->calls["cluster_tasks"], 1);
  EXPECT_GE(pve->calls["task_status"], 8) << "clone, upload, config and start of each launch";
}

TEST_F(RegionTaskList, ATransientListErrorFallsBackToOwnPollsForThatRoundOnly) {
  pve->fail_next("cluster_tasks", make_error("unavailable", "503 Service Unavailable"));
  auto a = spawn(settings(true));
  pve->reset_counts();
  auto r = launch(a, request("claim-transient"));
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(pve->calls["task_status"], 1) << "the round whose list failed";
  EXPECT_GE(pve->calls["cluster_tasks"], 2) << "later rounds read the list again";
}

// Rounds of the shared list on one host (so every launch learns the same task durations), with
// virtual time stepped finely enough that waits fall due a few milliseconds apart.
class RegionTaskRounds : public region_actor_fixture {
 protected:
  RegionTaskRounds() : region_actor_fixture(1) {}

  region_settings settings() {
    auto s = quiet_settings();
    s.task_list_gather = 30ms;
    return s;
  }

  // Advances virtual time in `step`s until every reply arrived (or a minute passed).
  void run_in_steps(const std::vector<std::shared_ptr<std::optional<launch_reply>>>& replies,
                    caf::timespan step = 5ms) {
    auto all_in = [&] {
      return std::all_of(replies.begin(), replies.end(),
                         [](const auto& r) { return r->has_value(); });
    };
    sched().run();
    for (caf::timespan t{0}; !all_in() && t < 1min; t += step) advance(step);
    for (const auto& r : replies) {
      ASSERT_TRUE(r->has_value()) << "no reply within a minute";
      EXPECT_TRUE((*r)->ok) << (*r)->error.code << ": " << (*r)->error.message;
    }
  }

  // Launches two NodeClaims `apart` from each other and counts the list reads until both ended.
  int list_reads_of_two_launches(const std::string& prefix, caf::timespan apart) {
    auto a = spawn(settings());
    pve->reset_counts();
    auto first = ask<launch_reply>(a, launch_atom::value, request(prefix + "-a"));
    sched().run();
    advance(apart);
    auto second = ask<launch_reply>(a, launch_atom::value, request(prefix + "-b"));
    run_in_steps({first, second});
    return pve->calls["cluster_tasks"];
  }
};

TEST_F(RegionTaskRounds, WaitsFallingDueAFewMillisecondsApartShareOneListRead) {
  const int together = list_reads_of_two_launches("together", 0ms);
  const int apart = list_reads_of_two_launches("apart", 5ms);
  EXPECT_GT(together, 0);
  // Every task of the second launch falls due 5 ms after the first's: within the gather window
  // they ride on the same reads.
  EXPECT_EQ(apart, together);
}

TEST_F(RegionTaskRounds, AReadInFlightServesTheWaitsThatFallDueBeforeItsAnswer) {
  pve->task_durations["qmclone"] = 1s;
  auto a = spawn(settings());
  run_in_steps({ask<launch_reply>(a, launch_atom::value, request("learns"))});
  // The clones' first looks now wait about a second, the second launch's 50 ms after the first's:
  // too far apart for one gather window.
  pve->reset_counts();
  pve->holding_task_list = true;
  auto first = ask<launch_reply>(a, launch_atom::value, request("first"));
  sched().run();
  advance(50ms);
  auto second = ask<launch_reply>(a, launch_atom::value, request("second"));
  sched().run();
  for (int i = 0; i < 1000 && pve->calls["cluster_tasks"] == 0; ++i) advance(5ms);
  ASSERT_EQ(pve->calls["cluster_tasks"], 1) << "the first clone's round";
  advance(60ms);  // the second clone falls due while the read is in flight
  pve->release_held();
  sched().run();
  EXPECT_EQ(pve->calls["cluster_tasks"], 1) << "the answer served the second clone's look too";
  EXPECT_EQ(pve->calls["task_status"], 0);
  pve->holding_task_list = false;
  pve->release_held();
  run_in_steps({first, second});
  EXPECT_EQ(pve->calls["task_status"], 0) << "the list named every task";
}

TEST_F(RegionTaskRounds, ATaskThatBeganAfterTheReadWentOutWaitsForTheNextRoundNotItsOwnPoll) {
  auto a = spawn(settings());
  pve->reset_counts();
  pve->holding_task_list = true;
  auto first = ask<launch_reply>(a, launch_atom::value, request("before"));
  sched().run();
  advance(40ms);  // the first clone's round read went out (held)
  ASSERT_EQ(pve->calls["cluster_tasks"], 1);
  auto second = ask<launch_reply>(a, launch_atom::value, request("after"));
  sched().run();  // its clone falls due at once (no clone ended yet): the read cannot list it
  pve->holding_task_list = false;
  pve->release_held();
  run_in_steps({first, second});
  EXPECT_EQ(pve->calls["task_status"], 0) << "its task was not left out of a list: too new";
}

TEST_F(RegionTaskRounds, AWaitWhoseTaskNeverEndsStillEndsAtItsDeadline) {
  pve->task_outcomes["qmclone"] = kp::test::fake_proxmox::task_outcome::never_ends;
  auto s = settings();
  s.clone_wait.timeout = 2s;
  auto a = spawn(s);
  const auto began = sched().clock().now();
  auto r = ask<launch_reply>(a, launch_atom::value, request("never"));
  sched().run();
  for (int i = 0; i < 1000 && !r->has_value(); ++i) advance(5ms);
  ASSERT_TRUE(r->has_value());
  EXPECT_FALSE((*r)->ok);
  EXPECT_NE((*r)->error.message.find("deadline"), std::string::npos) << (*r)->error.message;
  // The last look at the deadline joins one round, and the launch's clean-up after it another.
  EXPECT_LE(sched().clock().now() - began, 2s + 2 * s.task_list_gather + 5ms);
}

TEST_F(RegionTaskRounds, AListReadThatNeverAnswersStillEndsItsWaitsNearTheirDeadline) {
  pve->hanging = {"cluster_tasks"};
  auto s = settings();
  s.clone_wait.timeout = 2s;
  s.start_wait = s.clone_wait;
  auto a = spawn(s);
  const auto began = sched().clock().now();
  auto r = ask<launch_reply>(a, launch_atom::value, request("hung-list"));
  sched().run();
  for (int i = 0; i < 4000 && !r->has_value(); ++i) advance(5ms);
  ASSERT_TRUE(r->has_value()) << "the clone's wait hangs with the read";
  EXPECT_FALSE((*r)->ok);
  EXPECT_NE((*r)->error.message.find("deadline"), std::string::npos) << (*r)->error.message;
  // The clone's wait, then each wait of the clean-up (stop, destroy), ends past its deadline.
  const auto one_wait = s.clone_wait.timeout + s.clone_wait.max_interval + s.task_list_gather;
  EXPECT_LE(sched().clock().now() - began, 3 * one_wait + 5ms);
}

}  // namespace
}  // namespace kp::actors::region
