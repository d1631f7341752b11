// The simulated StatefulSet controller: ordinal names, OrderedReady creation and removal,
// Parallel, PersistentVolumeClaims from volumeClaimTemplates, rolling updates from the highest
// ordinal down to the partition, and status.
#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>

#include "workload_world.hpp"

namespace kp::sim::kube::testing {
namespace {

using namespace std::chrono_literals;

std::string stateful_set(int replicas, const std::string& extra_spec = "",
                         const std::string& cpu = "1") {
  return R"({"metadata":{"name":"db"},"spec":{"replicas":)" + std::to_string(replicas) + "," +
         extra_spec + R"("serviceName":"db","selector":{"matchLabels":{"app":"db"}},
    "template":{"metadata":{"labels":{"app":"db"}},"spec":{
      "volumes":[{"name":"data","emptyDir":{}}],
      "containers":[{"name":"c","image":"db:1","resources":{"requests":{"cpu":")" +
         cpu + R"("}}}]}},
    "volumeClaimTemplates":[{"metadata":{"name":"data"},
      "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}]}})";
}

class StatefulSetController : public ::testing::Test {
 protected:
  std::vector<std::string> names() {
    std::vector<std::string> out;
    for (const auto& p : world.pods("db-")) out.push_back(text_at(p, {"metadata", "name"}));
    return out;
  }
  boost::json::object set() { return world.get("apps", "statefulsets", "db"); }

  workload_world world;
};

TEST_F(StatefulSetController, OrderedReadyCreatesTheNextOrdinalOnlyOnceThePreviousIsReady) {
  world.add_node("a", "2", "8Gi");  // room for two pods of 1 CPU
  world.create("apps", "statefulsets", stateful_set(3));
  ASSERT_TRUE(world.settle());
  EXPECT_EQ(names(), (std::vector<std::string>{"db-0", "db-1", "db-2"}));
  EXPECT_EQ(text_at(world.get("", "pods", "db-2"), {"status", "phase"}), "Pending");
  EXPECT_EQ(number_at(set(), {"status", "readyReplicas"}), 2);
  // db-2 waits for room; scaling to 5 must not create db-3 before db-2 is ready.
  world.merge("apps", "statefulsets", "db", R"({"spec":{"replicas":5}})");
  world.run_for(1s);
  EXPECT_EQ(names().size(), 3u);
  world.add_node("b", "4", "8Gi");
  ASSERT_TRUE(world.settle());
  EXPECT_EQ(names(), (std::vector<std::string>{"db-0", "db-1", "db-2", "db-3", "db-4"}));
  for (const auto& p : world.pods("db-")) EXPECT_EQ(text_at(p, {"status", "phase"}), "Running");
  auto s = set();
  EXPECT_EQ(number_at(s, {"status", "replicas"}), 5);
  EXPECT_EQ(number_at(s, {"status", "readyReplicas"}), 5);
  EXPECT_EQ(number_at(s, {"status", "availableReplicas"}), 5);
  EXPECT_EQ(text_at(s, {"status", "currentRevision"}), text_at(s, {"status", "updateRevision"}));
}

TEST_F(StatefulSetController, EachPodGetsItsClaimsHostnameAndIdentityLabels) {
  world.add_node("a", "8", "8Gi");
  world.create("apps", "statefulsets", stateful_set(2));
  ASSERT_TRUE(world.settle());
  for (int i = 0; i < 2; ++i) {
    auto name = "db-" + std::to_string(i);
    auto claim = world.get("", "persistentvolumeclaims", "data-" + name);
    ASSERT_FALSE(claim.empty()) << "data-" << name;
    EXPECT_EQ(label(claim, "app"), "db");
    EXPECT_EQ(text_at(claim, {"spec", "resources", "requests", "storage"}), "1Gi");
    auto pod = world.get("", "pods", name);
    EXPECT_EQ(text_at(pod, {"spec", "hostname"}), name);
    EXPECT_EQ(text_at(pod, {"spec", "subdomain"}), "db");
    EXPECT_EQ(label(pod, "statefulset.kubernetes.io/pod-name"), name);
    EXPECT_EQ(label(pod, "apps.kubernetes.io/pod-index"), std::to_string(i));
    const auto* volumes = array_at(pod, {"spec", "volumes"});
    ASSERT_TRUE(volumes && volumes->size() == 1) << boost::json::serialize(pod);
    EXPECT_EQ(text_at((*volumes)[0].as_object(), {"persistentVolumeClaim", "claimName"}),
              "data-" + name)
        << "the claim replaces the template's volume of the same name";
  }
  EXPECT_EQ(text_at(set(), {"spec", "persistentVolumeClaimRetentionPolicy", "whenScaled"}),
            "Retain");
}

TEST_F(StatefulSetController, ScaleDownRemovesTheHighestOrdinalFirstAndKeepsItsClaims) {
  world.add_node("a", "8", "8Gi");
  world.create("apps", "statefulsets", stateful_set(4));
  ASSERT_TRUE(world.settle());
  world.merge("apps", "statefulsets", "db", R"({"spec":{"replicas":2}})");
  world.pass();
  auto deleting = world.pods("db-", true).size() - world.pods("db-").size();
  EXPECT_EQ(deleting, 1u) << "one at a time";
  EXPECT_TRUE(has_deletion_timestamp(world.get("", "pods", "db-3")));
  EXPECT_FALSE(has_deletion_timestamp(world.get("", "pods", "db-2")));
  world.run_for(3s);
  EXPECT_EQ(names(), (std::vector<std::string>{"db-0", "db-1"}));
  EXPECT_EQ(world.list("", "persistentvolumeclaims").size(), 4u) << "Retain keeps them";
}

TEST_F(StatefulSetController, WhenScaledDeleteRemovesTheClaimsOfRemovedOrdinals) {
  world.add_node("a", "8", "8Gi");
  world.create(
      "apps", "statefulsets",
      stateful_set(3, R"("persistentVolumeClaimRetentionPolicy":{"whenScaled":"Delete"},)"));
  ASSERT_TRUE(world.settle());
  world.merge("apps", "statefulsets", "db", R"({"spec":{"replicas":1}})");
  world.run_for(3s);
  std::vector<std::string> claims;
  for (const auto& c : world.list("", "persistentvolumeclaims"))
    claims.push_back(text_at(c, {"metadata", "name"}));
  EXPECT_EQ(claims, std::vector<std::string>{"data-db-0"});
}

TEST_F(StatefulSetController, ParallelCreatesEveryPodAtOnce) {
  world.create("apps", "statefulsets", stateful_set(3, R"("podManagementPolicy":"Parallel",)"));
  ASSERT_TRUE(world.settle());  // no node: nothing can become ready
  EXPECT_EQ(names(), (std::vector<std::string>{"db-0", "db-1", "db-2"}));
}

TEST_F(StatefulSetController, RollingUpdateReplacesPodsFromTheHighestOrdinalDownToThePartition) {
  world.add_node("a", "8", "8Gi");
  world.create(
      "apps", "statefulsets",
      stateful_set(
          3, R"("updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":1}},)"));
  ASSERT_TRUE(world.settle());
  auto old_revision = text_at(set(), {"status", "currentRevision"});
  world.merge("apps", "statefulsets", "db",
              R"({"spec":{"template":{"metadata":{"labels":{"app":"db","v":"2"}}}}})");
  std::vector<std::string> order;
  for (int i = 0; i < 60; ++i) {
    world.pass();
    for (const auto& p : world.pods("db-", true))
      if (has_deletion_timestamp(p) &&
          (order.empty() || order.back() != text_at(p, {"metadata", "name"})))
        order.push_back(text_at(p, {"metadata", "name"}));
    world.now += 100ms;
  }
  EXPECT_EQ(order, (std::vector<std::string>{"db-2", "db-1"})) << "db-0 is below the partition";
  EXPECT_EQ(label(world.get("", "pods", "db-0"), "controller-revision-hash"), old_revision);
  auto s = set();
  EXPECT_EQ(number_at(s, {"status", "updatedReplicas"}), 2);
  EXPECT_EQ(number_at(s, {"status", "currentReplicas"}), 1);
  EXPECT_NE(text_at(s, {"status", "updateRevision"}), old_revision);
  EXPECT_EQ(text_at(s, {"status", "currentRevision"}), old_revision)
      << "not complete below the partition";
}

}  // namespace
}  // namespace kp::sim::kube::testing
