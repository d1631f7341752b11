// pve-sim's GET /cluster/tasks as Proxmox serves it: every node's running tasks and its most
// recent finished ones (25 entries per node at most), a finished one with its end time and its
// exit status as `status`, a token's tasks with the user and the tokenid apart.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "pve_sim_test_client.hpp"

using namespace kp::sim::pve;
using namespace kp::sim::pve::testing;

namespace {

const boost::json::object* listed(const reply& r, const std::string& upid) {
  for (const auto& e : r.data().as_array())
    if (e.as_object().at("upid").as_string() == upid) return &e.as_object();
  return nullptr;
}

std::string upid_of(const reply& r) {
  return r.status == 200 && r.data().is_string() ? std::string(r.data().as_string()) : "";
}

}  // namespace

TEST(PveSimClusterTasks, ARunningTaskIsListedWithoutAnEndAndAFinishedOneWithItsExitStatus) {
  sim_fixture sim(1.0);  // a linked clone takes 1 s: it still runs when the list is read
  auto upid = upid_of(sim.api("POST", "/nodes/pve1/qemu/9001/clone", {{"newid", "900"}}));
  ASSERT_FALSE(upid.empty());
  auto running = sim.api("GET", "/cluster/tasks");
  ASSERT_EQ(running.status, 200) << running.body;
  const auto* r = listed(running, upid);
  ASSERT_NE(r, nullptr) << running.body;
  EXPECT_EQ(r->at("node").as_string(), "pve1");
  EXPECT_EQ(r->at("type").as_string(), "qmclone");
  EXPECT_EQ(r->at("id").as_string(), "9001");
  EXPECT_EQ(r->at("user").as_string(), "kubernetes@pve");
  EXPECT_EQ(r->at("tokenid").as_string(), "karpenter");
  EXPECT_TRUE(r->contains("pid"));
  EXPECT_TRUE(r->contains("starttime"));
  EXPECT_FALSE(r->contains("endtime")) << "a running task has no end yet";
  EXPECT_FALSE(r->contains("status"));

  ASSERT_FALSE(sim.wait_task(upid).empty());
  auto ended = sim.api("GET", "/cluster/tasks");
  const auto* e = listed(ended, upid);
  ASSERT_NE(e, nullptr) << ended.body;
  EXPECT_EQ(e->at("status").as_string(), "OK");
  EXPECT_GE(e->at("endtime").as_int64(), e->at("starttime").as_int64());
  EXPECT_FALSE(e->contains("pid"));
}

TEST(PveSimClusterTasks, AFailedTaskIsListedWithItsErrorText) {
  sim_fixture sim;
  ASSERT_EQ(sim.sim("PUT", "/sim/v1/faults",
                    R"({"failing_tasks":[{"type":"qmclone","rate":1.0,)"
                    R"("message":"clone failed: injected","count":1}]})")
                .status,
            200);
  auto upid = upid_of(sim.api("POST", "/nodes/pve2/qemu/9002/clone", {{"newid", "901"}}));
  ASSERT_FALSE(upid.empty());
  ASSERT_FALSE(sim.wait_task(upid).empty());
  auto list = sim.api("GET", "/cluster/tasks");
  const auto* e = listed(list, upid);
  ASSERT_NE(e, nullptr) << list.body;
  EXPECT_EQ(e->at("node").as_string(), "pve2");
  EXPECT_EQ(e->at("status").as_string(), "clone failed: injected");
}

TEST(PveSimClusterTasks, EachNodeListsOnlyItsTwentyFiveMostRecentFinishedTasks) {
  sim_fixture sim;
  std::vector<std::string> upids;
  for (int i = 0; i < 30; ++i) {
    auto upid = upid_of(sim.api("POST", "/nodes/pve1/qemu/9901/config",
                                {{"description", "round " + std::to_string(i)}}));
    ASSERT_FALSE(upid.empty());
    ASSERT_FALSE(sim.wait_task(upid).empty());
    upids.push_back(upid);
  }
  auto other = upid_of(sim.api("POST", "/nodes/pve2/qemu/9902/config", {{"description", "x"}}));
  ASSERT_FALSE(sim.wait_task(other).empty());

  auto list = sim.api("GET", "/cluster/tasks");
  ASSERT_EQ(list.status, 200);
  std::map<std::string, int> per_node;
  for (const auto& e : list.data().as_array()) ++per_node[std::string(e.at("node").as_string())];
  EXPECT_EQ(per_node["pve1"], 25);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(listed(list, upids[i]), nullptr) << "the oldest drop out";
  for (int i = 5; i < 30; ++i) EXPECT_NE(listed(list, upids[i]), nullptr) << i;
  EXPECT_NE(listed(list, other), nullptr) << "another node's list is its own";
}
