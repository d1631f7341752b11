// The simulated Job controller and the kubelet's run time: parallelism and completions, the
// Complete and Failed conditions, suspension, and pods that finish after their run-duration.
#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>

#include "workload_world.hpp"

namespace kp::sim::kube::testing {
namespace {

using namespace std::chrono_literals;

std::string job(const std::string& spec, const std::string& annotations = "{}") {
  return R"({"metadata":{"name":"batch"},"spec":{)" + spec +
         R"("template":{"metadata":{"annotations":)" + annotations +
         R"(},"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox:1"}]}}}})";
}

class JobController : public ::testing::Test {
 protected:
  void SetUp() override { world.add_node("a", "8", "8Gi"); }
  boost::json::object status() { return world.get("batch", "jobs", "batch"); }
  std::size_t running() {
    std::size_t n = 0;
    for (const auto& p : world.pods("batch-"))
      if (text_at(p, {"status", "phase"}) != "Succeeded" &&
          text_at(p, {"status", "phase"}) != "Failed")
        ++n;
    return n;
  }

  workload_world world;
};

TEST_F(JobController, RunsAtMostParallelismPodsUntilCompletionsSucceed) {
  world.create("batch", "jobs",
               job(R"("completions":5,"parallelism":2,)",
                   R"({"sim.karpenter.proxmox.sinextra.dev/run-duration":"1s"})"));
  std::size_t most = 0;
  for (int i = 0; i < 80 && condition_reason(status(), "Complete").empty(); ++i) {
    world.run_for(100ms);
    most = std::max(most, running());
  }
  auto j = status();
  EXPECT_EQ(condition_reason(j, "Complete"), "True/CompletionsReached")
      << boost::json::serialize(j);
  EXPECT_EQ(condition_reason(j, "SuccessCriteriaMet"), "True/CompletionsReached");
  EXPECT_EQ(most, 2u);
  EXPECT_EQ(number_at(j, {"status", "succeeded"}), 5);
  EXPECT_EQ(number_at(j, {"status", "active"}), 0);
  EXPECT_FALSE(text_at(j, {"status", "completionTime"}).empty());
  EXPECT_FALSE(text_at(j, {"status", "startTime"}).empty());
  EXPECT_EQ(world.pods("batch-").size(), 5u);
  for (const auto& p : world.pods("batch-")) {
    EXPECT_EQ(text_at(p, {"status", "phase"}), "Succeeded");
    EXPECT_EQ(label(p, "job-name"), "batch");
    EXPECT_EQ(label(p, "batch.kubernetes.io/controller-uid"), text_at(j, {"metadata", "uid"}));
  }
}

TEST_F(JobController, JobPodsRunTheDefaultRunTimeWithoutTheAnnotation) {
  world.settings.job_pod_run_time = 3s;
  world.create("batch", "jobs", job(""));
  world.run_for(2500ms);
  EXPECT_EQ(running(), 1u);
  world.run_for(1s);
  EXPECT_EQ(condition_reason(status(), "Complete"), "True/CompletionsReached");
  auto pod = world.pods("batch-").at(0);
  auto s = boost::json::serialize(pod);
  EXPECT_NE(s.find(R"("reason":"Completed")"), std::string::npos) << s;
  EXPECT_EQ(condition_reason(pod, "Ready"), "False/PodCompleted");
}

TEST_F(JobController, FailuresBeyondTheBackoffLimitFailTheJob) {
  world.create("batch", "jobs",
               job(R"("backoffLimit":1,)",
                   R"({"sim.karpenter.proxmox.sinextra.dev/run-duration":"200ms",
                                        "sim.karpenter.proxmox.sinextra.dev/exit-code":"3"})"));
  world.run_for(3s);
  auto j = status();
  EXPECT_EQ(condition_reason(j, "Failed"), "True/BackoffLimitExceeded")
      << boost::json::serialize(j);
  EXPECT_EQ(number_at(j, {"status", "failed"}), 2);
  EXPECT_EQ(running(), 0u);
  for (const auto& p : world.pods("batch-")) EXPECT_EQ(text_at(p, {"status", "phase"}), "Failed");
}

TEST_F(JobController, APodDeletedBeforeItFinishesIsReplacedAndCountedAsFailed) {
  world.create("batch", "jobs",
               job("", R"({"sim.karpenter.proxmox.sinextra.dev/run-duration":"1h"})"));
  ASSERT_TRUE(world.settle());
  auto first = text_at(world.pods("batch-").at(0), {"metadata", "name"});
  world.remove("", "pods", first);
  world.run_for(1s);
  ASSERT_EQ(world.pods("batch-").size(), 1u);
  EXPECT_NE(text_at(world.pods("batch-")[0], {"metadata", "name"}), first);
  EXPECT_EQ(number_at(status(), {"status", "failed"}), 1);
  EXPECT_EQ(number_at(status(), {"status", "active"}), 1);
}

TEST_F(JobController, ASuspendedJobHasNoPodsUntilResumed) {
  world.create("batch", "jobs", job(R"("suspend":true,)"));
  world.run_for(500ms);
  EXPECT_TRUE(world.pods("batch-").empty());
  EXPECT_EQ(condition_reason(status(), "Suspended"), "True/JobSuspended");
  world.merge("batch", "jobs", "batch", R"({"spec":{"suspend":false}})");
  world.run_for(500ms);
  EXPECT_EQ(running(), 1u);
  EXPECT_EQ(condition_reason(status(), "Suspended"), "False/JobResumed");
}

TEST_F(JobController, TheApiServerFillsInCompletionsParallelismAndBackoffLimit) {
  auto j = world.create("batch", "jobs", job(""));
  EXPECT_EQ(number_at(j, {"spec", "completions"}), 1);
  EXPECT_EQ(number_at(j, {"spec", "parallelism"}), 1);
  EXPECT_EQ(number_at(j, {"spec", "backoffLimit"}), 6);
  EXPECT_EQ(text_at(j, {"spec", "completionMode"}), "NonIndexed");
}

TEST(KubeletRunTime, APodWithARunDurationSucceedsAfterItUnlessItRestartsAlways) {
  workload_world world;
  world.add_node("a");
  auto pod = [](const std::string& name, const std::string& policy) {
    return R"({"metadata":{"name":")" + name +
           R"(","annotations":{"sim.karpenter.proxmox.sinextra.dev/run-duration":"2s"}},
      "spec":{"restartPolicy":")" +
           policy + R"(","containers":[{"name":"c","image":"i:1"}]}})";
  };
  world.create("", "pods", pod("once", "Never"));
  world.create("", "pods", pod("again", "OnFailure"));
  world.create("", "pods", pod("server", "Always"));
  world.run_for(1500ms);
  for (const char* n : {"once", "again", "server"})
    EXPECT_EQ(text_at(world.get("", "pods", n), {"status", "phase"}), "Running") << n;
  world.run_for(1s);
  EXPECT_EQ(text_at(world.get("", "pods", "once"), {"status", "phase"}), "Succeeded");
  EXPECT_EQ(text_at(world.get("", "pods", "again"), {"status", "phase"}), "Succeeded");
  EXPECT_EQ(text_at(world.get("", "pods", "server"), {"status", "phase"}), "Running");
}

}  // namespace
}  // namespace kp::sim::kube::testing
