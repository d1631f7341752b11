// The simulated DaemonSet controller: one pod per eligible node (new nodes too), eligibility by
// nodeSelector, required node affinity and taints with the tolerations every DaemonSet pod gets,
// pods that target their node by affinity and wait for room, rolling template changes, status.
#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>
#include <set>

#include "workload_world.hpp"

namespace kp::sim::kube::testing {
namespace {

using namespace std::chrono_literals;

std::string daemon_set(const std::string& extra_spec = "", const std::string& cpu = "100m") {
  return R"({"metadata":{"name":"agent","namespace":"kube-system"},"spec":{
    "selector":{"matchLabels":{"app":"agent"}},"template":{"metadata":{"labels":{"app":"agent"}},
    "spec":{)" +
         extra_spec +
         R"("containers":[{"name":"c","image":"agent:1","resources":{"requests":{"cpu":")" + cpu +
         R"("}}}]}}}})";
}

class DaemonSetController : public ::testing::Test {
 protected:
  std::map<std::string, std::string> placement() {  // node -> phase
    std::map<std::string, std::string> out;
    for (const auto& p : world.list("", "pods", "kube-system"))
      if (!has_deletion_timestamp(p))
        out[text_at(p, {"spec", "nodeName"}).empty() ? "(unbound)"
                                                     : text_at(p, {"spec", "nodeName"})] =
            text_at(p, {"status", "phase"});
    return out;
  }
  boost::json::object ds() { return world.get("apps", "daemonsets", "agent", "kube-system"); }

  workload_world world;
};

TEST_F(DaemonSetController, PutsOnePodOnEveryNodeIncludingNodesThatAppearLater) {
  world.add_node("a");
  world.add_node("b");
  world.create("apps", "daemonsets", daemon_set(), "kube-system");
  ASSERT_TRUE(world.settle());
  EXPECT_EQ(placement(), (std::map<std::string, std::string>{{"a", "Running"}, {"b", "Running"}}));
  world.add_node("c");
  ASSERT_TRUE(world.settle());
  EXPECT_EQ(placement().size(), 3u);
  EXPECT_EQ(placement()["c"], "Running");
  auto d = ds();
  EXPECT_EQ(number_at(d, {"status", "desiredNumberScheduled"}), 3);
  EXPECT_EQ(number_at(d, {"status", "currentNumberScheduled"}), 3);
  EXPECT_EQ(number_at(d, {"status", "numberReady"}), 3);
  EXPECT_EQ(number_at(d, {"status", "numberAvailable"}), 3);
  EXPECT_EQ(number_at(d, {"status", "updatedNumberScheduled"}), 3);
  EXPECT_EQ(number_at(d, {"status", "numberMisscheduled"}), 0);
  EXPECT_EQ(number_at(d, {"status", "observedGeneration"}), 1);
}

TEST_F(DaemonSetController, PodsTargetTheirNodeByAffinityAndCarryTheDaemonTolerations) {
  world.add_node("a");
  world.create("apps", "daemonsets", daemon_set(), "kube-system");
  ASSERT_TRUE(world.settle());
  auto pods = world.list("", "pods", "kube-system");
  ASSERT_EQ(pods.size(), 1u);
  auto s = boost::json::serialize(pods[0]);
  EXPECT_NE(s.find(R"("matchFields":[{"key":"metadata.name","operator":"In","values":["a"]}])"),
            std::string::npos)
      << s;
  for (const char* key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable",
                          "node.kubernetes.io/disk-pressure", "node.kubernetes.io/memory-pressure",
                          "node.kubernetes.io/pid-pressure", "node.kubernetes.io/unschedulable"})
    EXPECT_NE(s.find(key), std::string::npos) << key;
  EXPECT_EQ(s.find("tolerationSeconds"), std::string::npos)
      << "daemon pods are never evicted for these";
  EXPECT_FALSE(label(pods[0], "controller-revision-hash").empty());
  EXPECT_EQ(label(pods[0], "pod-template-generation"), "1");
}

TEST_F(DaemonSetController, NodeSelectorAffinityAndUntoleratedTaintsKeepNodesOut) {
  world.add_node("plain");
  world.add_node("gpu", "4", "8Gi", R"({"gpu":"true"})");
  world.add_node("gpu-tainted", "4", "8Gi", R"({"gpu":"true"})",
                 R"([{"key":"dedicated","value":"x","effect":"NoSchedule"}])");
  world.add_node("gpu-unregistered", "4", "8Gi", R"({"gpu":"true"})",
                 R"([{"key":"karpenter.sh/unregistered","effect":"NoExecute"}])");
  world.add_node("gpu-arm", "4", "8Gi", R"({"gpu":"true","kubernetes.io/arch":"arm64"})");
  world.create("apps", "daemonsets",
               daemon_set(R"("nodeSelector":{"gpu":"true"},"affinity":{"nodeAffinity":{
                 "requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[
                 {"key":"kubernetes.io/arch","operator":"NotIn","values":["arm64"]}]}]}}},)"),
               "kube-system");
  ASSERT_TRUE(world.settle());
  EXPECT_EQ(placement(), (std::map<std::string, std::string>{{"gpu", "Running"}}));
  // Karpenter removes the unregistered taint once the node registers: the node becomes eligible.
  world.merge("", "nodes", "gpu-unregistered", R"({"spec":{"taints":null}})", "");
  ASSERT_TRUE(world.settle());
  EXPECT_EQ(placement().count("gpu-unregistered"), 1u);
  EXPECT_EQ(number_at(ds(), {"status", "desiredNumberScheduled"}), 2);
}

TEST_F(DaemonSetController, AToleratedTaintIsNoObstacle) {
  world.add_node("tainted", "4", "8Gi", "{}",
                 R"([{"key":"dedicated","value":"infra","effect":"NoSchedule"}])");
  world.create(
      "apps", "daemonsets",
      daemon_set(
          R"("tolerations":[{"key":"dedicated","operator":"Equal","value":"infra","effect":"NoSchedule"}],)"),
      "kube-system");
  ASSERT_TRUE(world.settle());
  EXPECT_EQ(placement()["tainted"], "Running");
}

TEST_F(DaemonSetController, ANoScheduleTaintLaterKeepsThePodButNoExecuteRemovesIt) {
  world.add_node("a");
  world.create("apps", "daemonsets", daemon_set(), "kube-system");
  ASSERT_TRUE(world.settle());
  world.merge("", "nodes", "a",
              R"({"spec":{"taints":[{"key":"karpenter.sh/disrupted","effect":"NoSchedule"}]}})",
              "");
  world.run_for(1s);
  EXPECT_EQ(placement()["a"], "Running") << "pods may continue on a NoSchedule node";
  EXPECT_EQ(number_at(ds(), {"status", "numberMisscheduled"}), 1);
  EXPECT_EQ(number_at(ds(), {"status", "desiredNumberScheduled"}), 0);
  world.merge("", "nodes", "a", R"({"spec":{"taints":[{"key":"evict","effect":"NoExecute"}]}})",
              "");
  world.run_for(2s);
  EXPECT_TRUE(placement().empty());
}

TEST_F(DaemonSetController, CordonedNodesKeepAndGetTheirDaemonPods) {
  world.add_node("a");
  world.merge("", "nodes", "a", R"({"spec":{"unschedulable":true}})", "");
  world.create("apps", "daemonsets", daemon_set(), "kube-system");
  ASSERT_TRUE(world.settle());
  EXPECT_EQ(placement()["a"], "Running")
      << "the unschedulable toleration lets the scheduler bind it";
}

TEST_F(DaemonSetController, APodThatDoesNotFitItsNodeStaysPending) {
  world.add_node("small", "1", "1Gi");
  world.create("apps", "daemonsets", daemon_set("", "2"), "kube-system");
  ASSERT_TRUE(world.settle());
  auto pods = world.list("", "pods", "kube-system");
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(text_at(pods[0], {"status", "phase"}), "Pending");
  EXPECT_EQ(condition_reason(pods[0], "PodScheduled"), "False/Unschedulable");
  EXPECT_EQ(number_at(ds(), {"status", "numberReady"}), 0);
  EXPECT_EQ(number_at(ds(), {"status", "numberUnavailable"}), 1);
}

TEST_F(DaemonSetController, DeletedOrFailedPodsAreReplacedAndSurplusOnesRemoved) {
  world.add_node("a");
  world.create("apps", "daemonsets", daemon_set(), "kube-system");
  ASSERT_TRUE(world.settle());
  auto first = text_at(world.list("", "pods", "kube-system")[0], {"metadata", "name"});
  world.remove("", "pods", first, "kube-system");
  world.run_for(2s);
  auto pods = world.list("", "pods", "kube-system");
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_NE(text_at(pods[0], {"metadata", "name"}), first);
  EXPECT_EQ(text_at(pods[0], {"status", "phase"}), "Running");
}

TEST_F(DaemonSetController, ATemplateChangeRollsOneNodeAtATime) {
  for (const char* n : {"a", "b", "c", "d"}) world.add_node(n);
  world.create("apps", "daemonsets", daemon_set(), "kube-system");
  ASSERT_TRUE(world.settle());
  auto old_hash = label(world.list("", "pods", "kube-system")[0], "controller-revision-hash");
  world.merge("apps", "daemonsets", "agent",
              R"({"spec":{"template":{"metadata":{"labels":{"app":"agent","v":"2"}}}}})",
              "kube-system");
  std::size_t worst_ready = 4;
  for (int i = 0; i < 80; ++i) {
    world.pass();
    std::size_t ready = 0;
    for (const auto& p : world.list("", "pods", "kube-system"))
      if (!has_deletion_timestamp(p) && condition_reason(p, "Ready").rfind("True", 0) == 0) ++ready;
    worst_ready = std::min(worst_ready, ready);
    world.now += 100ms;
  }
  std::set<std::string> hashes;
  for (const auto& p : world.list("", "pods", "kube-system"))
    hashes.insert(label(p, "controller-revision-hash"));
  EXPECT_EQ(hashes.size(), 1u);
  EXPECT_EQ(hashes.count(old_hash), 0u);
  EXPECT_GE(worst_ready, 3u) << "maxUnavailable 1";
  EXPECT_EQ(number_at(ds(), {"status", "updatedNumberScheduled"}), 4);
  EXPECT_EQ(number_at(ds(), {"status", "observedGeneration"}), 2);
}

TEST_F(DaemonSetController, PodsForANodeThatIsGoneAreDeleted) {
  world.add_node("a", "1", "1Gi");
  world.create("apps", "daemonsets", daemon_set("", "2"), "kube-system");  // stays unbound
  ASSERT_TRUE(world.settle());
  ASSERT_EQ(world.list("", "pods", "kube-system").size(), 1u);
  world.remove("", "nodes", "a", "");
  ASSERT_TRUE(world.settle());
  EXPECT_TRUE(world.list("", "pods", "kube-system").empty());
}

}  // namespace
}  // namespace kp::sim::kube::testing
