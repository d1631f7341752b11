// The simulated Deployment controller, driven pass by pass: ReplicaSets named by the pod-template
// hash, rolling updates within maxSurge and maxUnavailable, Recreate, scaling, history cleanup,
// and the status `kubectl rollout status` reads.
#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>

#include "workload_world.hpp"

namespace kp::sim::kube::testing {
namespace {

using namespace std::chrono_literals;

std::string deployment(const std::string& image, int replicas, const std::string& strategy = "") {
  return R"({"metadata":{"name":"web"},"spec":{"replicas":)" + std::to_string(replicas) +
         (strategy.empty() ? "" : R"(,"strategy":)" + strategy) +
         R"(,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},
         "spec":{"containers":[{"name":"c","image":")" +
         image + R"(","resources":{"requests":{"cpu":"100m"}}}]}}}})";
}

std::string image_of(const boost::json::object& rs) {
  const auto* cs = array_at(rs, {"spec", "template", "spec", "containers"});
  return cs && !cs->empty() ? text_at((*cs)[0].as_object(), {"image"}) : "";
}

std::string owner_kind(const boost::json::object& o) {
  const auto* refs = array_at(o, {"metadata", "ownerReferences"});
  return refs && refs->size() == 1 ? text_at((*refs)[0].as_object(), {"kind"}) : "";
}

class DeploymentController : public ::testing::Test {
 protected:
  void SetUp() override { world.add_node("a", "64", "64Gi"); }

  std::vector<boost::json::object> replica_sets() { return world.list("apps", "replicasets"); }
  boost::json::object status() { return world.get("apps", "deployments", "web"); }
  // Pods not being deleted, and how many of them are ready.
  std::pair<std::size_t, std::size_t> pod_counts() {
    std::size_t live = 0, ready = 0;
    for (const auto& p : world.pods("web-")) {
      ++live;
      if (condition_reason(p, "Ready").rfind("True", 0) == 0) ++ready;
    }
    return {live, ready};
  }
  // What `kubectl rollout status` checks before it says "successfully rolled out".
  bool rolled_out() {
    auto d = status();
    auto want = number_at(d, {"spec", "replicas"});
    return number_at(d, {"status", "observedGeneration"}) >=
               number_at(d, {"metadata", "generation"}) &&
           number_at(d, {"status", "updatedReplicas"}) == want &&
           number_at(d, {"status", "replicas"}) == want &&
           number_at(d, {"status", "availableReplicas"}) == want &&
           condition_reason(d, "Progressing") != "False/ProgressDeadlineExceeded";
  }

  workload_world world;
};

TEST_F(DeploymentController, CreatesAReplicaSetNamedByThePodTemplateHashAndReportsItAvailable) {
  world.create("apps", "deployments", deployment("nginx:1", 3));
  ASSERT_TRUE(world.settle());
  auto sets = replica_sets();
  ASSERT_EQ(sets.size(), 1u);
  auto hash = label(sets[0], "pod-template-hash");
  ASSERT_FALSE(hash.empty());
  EXPECT_EQ(text_at(sets[0], {"metadata", "name"}), "web-" + hash);
  EXPECT_EQ(text_at(sets[0], {"spec", "selector", "matchLabels", "pod-template-hash"}), hash);
  EXPECT_EQ(owner_kind(sets[0]), "Deployment");
  EXPECT_EQ(text_at(sets[0], {"metadata", "annotations", "deployment.kubernetes.io/revision"}),
            "1");
  auto pods = world.pods("web-" + hash + "-");
  ASSERT_EQ(pods.size(), 3u);
  for (const auto& p : pods) EXPECT_EQ(label(p, "pod-template-hash"), hash);
  auto d = status();
  EXPECT_TRUE(rolled_out()) << boost::json::serialize(d);
  EXPECT_EQ(condition_reason(d, "Available"), "True/MinimumReplicasAvailable");
  EXPECT_EQ(condition_reason(d, "Progressing"), "True/NewReplicaSetAvailable");
  EXPECT_EQ(number_at(d, {"status", "readyReplicas"}), 3);
}

TEST_F(DeploymentController, TheApiServerFillsInTheRollingUpdateDefaults) {
  auto d = world.create("apps", "deployments", deployment("nginx:1", 2));
  EXPECT_EQ(text_at(d, {"spec", "strategy", "type"}), "RollingUpdate");
  EXPECT_EQ(text_at(d, {"spec", "strategy", "rollingUpdate", "maxSurge"}), "25%");
  EXPECT_EQ(text_at(d, {"spec", "strategy", "rollingUpdate", "maxUnavailable"}), "25%");
  EXPECT_EQ(number_at(d, {"spec", "revisionHistoryLimit"}), 10);
  EXPECT_EQ(number_at(d, {"spec", "progressDeadlineSeconds"}), 600);
}

TEST_F(DeploymentController, RollingUpdateStaysWithinMaxSurgeAndMaxUnavailable) {
  // 8 replicas with the defaults: at most 10 pods (25% surge) and at least 6 available.
  world.create("apps", "deployments", deployment("nginx:1", 8));
  ASSERT_TRUE(world.settle());
  ASSERT_TRUE(rolled_out());
  world.merge(
      "apps", "deployments", "web",
      R"({"spec":{"template":{"spec":{"containers":[{"name":"c","image":"nginx:2","resources":{"requests":{"cpu":"100m"}}}]}}}})");
  // Pods start only when the kubelet runs: pass by pass, the fenceposts must hold.
  world.enabled["kubelet"] = false;
  std::size_t most = 0, fewest_ready = 99;
  for (int step = 0; step < 60 && !rolled_out(); ++step) {
    world.pass();
    auto [live, ready] = pod_counts();
    most = std::max(most, live);
    fewest_ready = std::min(fewest_ready, ready);
    world.enabled["kubelet"] = step % 2 == 1;  // pods become ready every other pass
    world.now += 600ms;                        // old pods finish terminating
  }
  world.enabled["kubelet"] = true;
  ASSERT_TRUE(world.settle());
  EXPECT_TRUE(rolled_out()) << boost::json::serialize(status());
  EXPECT_LE(most, 10u) << "maxSurge 25% of 8 is 2";
  EXPECT_GE(fewest_ready, 6u) << "maxUnavailable 25% of 8 is 2";
  auto sets = replica_sets();
  ASSERT_EQ(sets.size(), 2u);
  for (const auto& rs : sets)
    EXPECT_EQ(number_at(rs, {"spec", "replicas"}), image_of(rs) == "nginx:2" ? 8 : 0)
        << text_at(rs, {"metadata", "name"});
  for (const auto& p : world.pods("web-")) EXPECT_EQ(owner_kind(p), "ReplicaSet");
  EXPECT_EQ(text_at(status(), {"metadata", "annotations", "deployment.kubernetes.io/revision"}),
            "2");
}

TEST_F(DeploymentController, RecreateRemovesEveryOldPodBeforeTheFirstNewOne) {
  world.create("apps", "deployments", deployment("nginx:1", 3, R"({"type":"Recreate"})"));
  ASSERT_TRUE(world.settle());
  auto old_hash = label(replica_sets()[0], "pod-template-hash");
  world.merge("apps", "deployments", "web",
              R"({"spec":{"template":{"metadata":{"labels":{"app":"web","v":"2"}}}}})");
  bool mixed = false;
  for (int step = 0; step < 40 && !rolled_out(); ++step) {
    world.pass();
    bool old_left = false, new_seen = false;
    for (const auto& p : world.pods("web-", true)) {
      if (label(p, "pod-template-hash") == old_hash)
        old_left = true;
      else
        new_seen = true;
    }
    mixed |= old_left && new_seen;
    world.now += 200ms;
  }
  EXPECT_TRUE(rolled_out()) << boost::json::serialize(status());
  EXPECT_FALSE(mixed) << "old and new pods must never exist together";
  for (const auto& p : world.pods("web-")) EXPECT_EQ(label(p, "v"), "2");
}

TEST_F(DeploymentController, SpecReplicasScalesTheCurrentReplicaSetUpAndDown) {
  world.create("apps", "deployments", deployment("nginx:1", 2));
  ASSERT_TRUE(world.settle());
  world.merge("apps", "deployments", "web", R"({"spec":{"replicas":20}})");
  ASSERT_TRUE(world.settle());
  EXPECT_EQ(pod_counts().second, 20u);
  EXPECT_TRUE(rolled_out());
  world.merge("apps", "deployments", "web", R"({"spec":{"replicas":1}})");
  world.run_for(2s);
  EXPECT_EQ(pod_counts().first, 1u);
  EXPECT_EQ(replica_sets().size(), 1u) << "scaling is not a rollout";
  EXPECT_TRUE(rolled_out());
}

TEST_F(DeploymentController, OldReplicaSetsBeyondTheRevisionHistoryLimitAreDeleted) {
  auto d = deployment("nginx:0", 1);
  d.insert(d.find("\"replicas\""), R"("revisionHistoryLimit":2,)");
  world.create("apps", "deployments", d);
  ASSERT_TRUE(world.settle());
  for (int v = 1; v <= 4; ++v) {
    world.merge("apps", "deployments", "web",
                R"({"spec":{"template":{"metadata":{"labels":{"app":"web","v":")" +
                    std::to_string(v) + R"("}}}}})");
    world.run_for(2s);
    ASSERT_TRUE(rolled_out()) << v;
  }
  EXPECT_EQ(replica_sets().size(), 3u) << "the current one and two old ones";
}

TEST_F(DeploymentController, ReturningToAnOldTemplateReusesItsReplicaSetUnderANewRevision) {
  world.create("apps", "deployments", deployment("nginx:1", 2));
  ASSERT_TRUE(world.settle());
  auto first = text_at(replica_sets()[0], {"metadata", "name"});
  for (const char* image : {"nginx:2", "nginx:1"}) {
    world.merge("apps", "deployments", "web",
                std::string(R"({"spec":{"template":{"spec":{"containers":[{"name":"c","image":")") +
                    image + R"(","resources":{"requests":{"cpu":"100m"}}}]}}}})");
    world.run_for(2s);
  }
  ASSERT_TRUE(rolled_out());
  auto rs = world.get("apps", "replicasets", first);
  EXPECT_EQ(number_at(rs, {"spec", "replicas"}), 2);
  EXPECT_EQ(text_at(rs, {"metadata", "annotations", "deployment.kubernetes.io/revision"}), "3");
}

TEST_F(DeploymentController, PodsThatNeverRunExceedTheProgressDeadline) {
  auto d = deployment("nginx:1", 2);
  d.insert(d.find("\"replicas\""), R"("progressDeadlineSeconds":30,)");
  // Larger than any node: the pods stay Pending.
  auto pos = d.find("100m");
  d.replace(pos, 4, "500");
  world.create("apps", "deployments", d);
  ASSERT_TRUE(world.settle());
  EXPECT_EQ(condition_reason(status(), "Available"), "False/MinimumReplicasUnavailable");
  // Pods were created: that is progress (ReplicaSetUpdated), and it restarts the deadline.
  EXPECT_EQ(condition_reason(status(), "Progressing"), "True/ReplicaSetUpdated");
  world.run_for(20s, 1s);
  EXPECT_EQ(condition_reason(status(), "Progressing"), "True/ReplicaSetUpdated");
  world.run_for(11s, 1s);
  EXPECT_EQ(condition_reason(status(), "Progressing"), "False/ProgressDeadlineExceeded");
}

TEST_F(DeploymentController, APausedDeploymentDoesNotRollOut) {
  world.create("apps", "deployments", deployment("nginx:1", 2));
  ASSERT_TRUE(world.settle());
  world.merge(
      "apps", "deployments", "web",
      R"({"spec":{"paused":true,"template":{"metadata":{"labels":{"app":"web","v":"2"}}}}})");
  world.run_for(1s);
  EXPECT_EQ(replica_sets().size(), 1u);
  EXPECT_EQ(condition_reason(status(), "Progressing"), "Unknown/DeploymentPaused");
  world.merge("apps", "deployments", "web", R"({"spec":{"paused":false}})");
  world.run_for(2s);
  EXPECT_EQ(replica_sets().size(), 2u);
  EXPECT_TRUE(rolled_out());
}

TEST_F(DeploymentController, SwitchedOffItLeavesDeploymentsAlone) {
  world.enabled["deployment"] = false;
  world.create("apps", "deployments", deployment("nginx:1", 2));
  world.run_for(1s);
  EXPECT_TRUE(replica_sets().empty());
  EXPECT_TRUE(world.pods("web-").empty());
}

}  // namespace
}  // namespace kp::sim::kube::testing
