// Task waits that share one GET /cluster/tasks read per poll round, in virtual time over the
// in-memory Proxmox: a burst of launches reads far fewer times than one status poll per look, a
// task the list leaves out is polled on its own, a failed task is still named with its error, and
// a list Proxmox refuses is not asked again.
#include <gtest/gtest.h>

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
    auto s = region_actor_fixture::settings();
    s.refresh_interval = 1h;
    s.clone_wait.timeout = 1min;
    s.start_wait = s.clone_wait;
    s.cluster_task_list = cluster_task_list;
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

}  // namespace
}  // namespace kp::actors::region
