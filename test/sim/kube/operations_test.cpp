// The API semantics of writes, without HTTP: names, concurrency, finalizers, graceful pod
// deletion, evictions under a PodDisruptionBudget, and CRD registration.
#include "sim/kube/operations.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

#include "sim/kube/json_util.hpp"
#include "sim/kube/pdb.hpp"

namespace kp::sim::kube {
namespace {
namespace json = boost::json;

class KubeSimOperations : public ::testing::Test {
 protected:
  KubeSimOperations() : hub(1000), store(hub), ops(registry, store, [this] { return now; }) {
    for (const char* ns : {"default", "kube-system"})
      (void)create("namespaces", "", json::object{{"metadata", json::object{{"name", ns}}}});
  }
  const resource_type& type(const char* group, const char* plural) {
    return *registry.find_any_version(group, plural);
  }
  api_result<object_ptr> create(const char* plural, const char* ns, json::object o,
                                const char* group = "") {
    write_options wo;
    return ops.create(type(group, plural), ns, std::move(o), admin, wo);
  }
  json::object pod(const std::string& name, const std::string& node = "") {
    auto p =
        json::parse(
            R"({"metadata":{"name":"","labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"i:1"}]}})")
            .as_object();
    p["metadata"].as_object()["name"] = name;
    if (!node.empty()) p["spec"].as_object()["nodeName"] = node;
    return p;
  }

  resource_registry registry;
  watch_hub hub;
  object_store store;
  std::chrono::system_clock::time_point now = std::chrono::system_clock::now();
  operations ops;
  user_info admin{"admin", "", {"system:masters"}};
};

TEST_F(KubeSimOperations, CreateAssignsNameUidTimestampAndResourceVersion) {
  auto r = create("configmaps", "default",
                  json::parse(R"({"metadata":{"generateName":"cfg-"}})").as_object());
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto& o = r.value()->object;
  EXPECT_EQ(meta_name(o).substr(0, 4), "cfg-");
  EXPECT_EQ(meta_name(o).size(), 9u);
  EXPECT_FALSE(meta_uid(o).empty());
  EXPECT_FALSE(string_at(o, {"metadata", "creationTimestamp"}).empty());
  EXPECT_EQ(string_at(o, {"metadata", "resourceVersion"}), std::to_string(store.current_rv()));
  EXPECT_EQ(string_at(o, {"kind"}), "ConfigMap");
}

TEST_F(KubeSimOperations, DuplicatesAreAlreadyExistsAndMissingNamespacesNotFound) {
  ASSERT_TRUE(
      create("configmaps", "default", json::parse(R"({"metadata":{"name":"a"}})").as_object())
          .ok());
  auto dup =
      create("configmaps", "default", json::parse(R"({"metadata":{"name":"a"}})").as_object());
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().code, 409);
  EXPECT_EQ(dup.error().reason, "AlreadyExists");
  auto nons =
      create("configmaps", "nowhere", json::parse(R"({"metadata":{"name":"a"}})").as_object());
  EXPECT_EQ(nons.error().code, 404);
  auto bad = create("configmaps", "default",
                    json::parse(R"({"metadata":{"name":"Not_Valid"}})").as_object());
  EXPECT_EQ(bad.error().code, 422);
}

TEST_F(KubeSimOperations, UpdateWithAStaleResourceVersionIsAConflict) {
  auto c = create("configmaps", "default",
                  json::parse(R"({"metadata":{"name":"a"},"data":{"k":"1"}})").as_object());
  json::object first = c.value()->object;
  first["data"].as_object()["k"] = "2";
  write_options wo;
  auto u = ops.update(type("", "configmaps"), "default", "a", first, write_scope::main, wo);
  ASSERT_TRUE(u.ok());
  first["data"].as_object()["k"] = "3";
  auto stale = ops.update(type("", "configmaps"), "default", "a", first, write_scope::main, wo);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.error().code, 409);
  EXPECT_EQ(stale.error().reason, "Conflict");
}

TEST_F(KubeSimOperations, FinalizersKeepADeletedObjectUntilTheLastOneIsRemoved) {
  ASSERT_TRUE(create("configmaps", "default",
                     json::parse(R"({"metadata":{"name":"a","finalizers":["x/y"]}})").as_object())
                  .ok());
  auto d = ops.remove(type("", "configmaps"), "default", "a", {});
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d.value().removed);
  auto kept = store.get("/configmaps", "default", "a");
  ASSERT_TRUE(kept);
  EXPECT_TRUE(has_deletion_timestamp(kept->object));
  json::object add = kept->object;
  add["metadata"].as_object()["finalizers"].as_array().push_back("new/one");
  write_options wo;
  EXPECT_EQ(
      ops.update(type("", "configmaps"), "default", "a", add, write_scope::main, wo).error().code,
      422)
      << "no new finalizers once deleting";
  json::object drop = kept->object;
  drop["metadata"].as_object().erase("finalizers");
  ASSERT_TRUE(ops.update(type("", "configmaps"), "default", "a", drop, write_scope::main, wo).ok());
  EXPECT_FALSE(store.get("/configmaps", "default", "a"));
}

TEST_F(KubeSimOperations, BoundPodsAreDeletedGracefullyUnboundOnesAtOnce) {
  ASSERT_TRUE(create("pods", "default", pod("bound", "w1")).ok());
  ASSERT_TRUE(create("pods", "default", pod("loose")).ok());
  auto b = ops.remove(type("", "pods"), "default", "bound", {});
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b.value().removed);
  EXPECT_EQ(string_at(b.value().object->object, {"metadata", "deletionTimestamp"}),
            format_time(now + std::chrono::seconds(30)));
  auto l = ops.remove(type("", "pods"), "default", "loose", {});
  EXPECT_TRUE(l.value().removed);
  delete_options force;
  force.grace_period_seconds = 0;
  EXPECT_TRUE(ops.remove(type("", "pods"), "default", "bound", force).value().removed);
}

TEST_F(KubeSimOperations, EvictionIsRefusedWith429WhileTheBudgetAllowsNoDisruption) {
  for (const char* n : {"p1", "p2"}) {
    auto p = create("pods", "default", pod(n, "w1"));
    json::object running = p.value()->object;
    running["status"] =
        json::parse(R"({"phase":"Running","conditions":[{"type":"Ready","status":"True"}]})");
    ops.write(type("", "pods"), running);
  }
  (void)create(
      "poddisruptionbudgets", "default",
      json::parse(
          R"({"metadata":{"name":"pdb"},"spec":{"minAvailable":2,"selector":{"matchLabels":{"app":"a"}}}})")
          .as_object(),
      "policy");
  auto blocked = evict_pod(ops, "default", "p1", json::parse(R"({"metadata":{"name":"p1"}})"));
  ASSERT_FALSE(blocked.ok());
  EXPECT_EQ(blocked.error().code, 429);
  EXPECT_EQ(blocked.error().message,
            "Cannot evict pod as it would violate the pod's disruption budget.");
  EXPECT_EQ(
      evict_pod(ops, "default", "p1", json::parse(R"({"metadata":{"name":"p2"}})")).error().code,
      400);
  json::object relaxed = store.get("policy/poddisruptionbudgets", "default", "pdb")->object;
  relaxed["spec"].as_object()["minAvailable"] = 1;
  ops.write(type("policy", "poddisruptionbudgets"), relaxed);
  auto allowed = evict_pod(ops, "default", "p1", json::parse(R"({"metadata":{"name":"p1"}})"));
  ASSERT_TRUE(allowed.ok());
  EXPECT_EQ(allowed.value().at("code"), json::value(201));
  EXPECT_TRUE(has_deletion_timestamp(store.get("/pods", "default", "p1")->object));
  EXPECT_EQ(
      evict_pod(ops, "default", "p2", json::parse(R"({"metadata":{"name":"p2"}})")).error().code,
      429)
      << "the evicted pod no longer counts as healthy";
}

TEST_F(KubeSimOperations, CreatingACrdServesItsResourceAndDeletingItRemovesTheObjects) {
  auto crd =
      json::parse(
          R"({"metadata":{"name":"gadgets.example.com"},"spec":{"group":"example.com","scope":"Cluster",
    "names":{"plural":"gadgets","kind":"Gadget"},"versions":[{"name":"v1","served":true,"storage":true,
    "schema":{"openAPIV3Schema":{"type":"object"}}}]}})")
          .as_object();
  ASSERT_TRUE(create("customresourcedefinitions", "", crd, "apiextensions.k8s.io").ok());
  const auto* t = registry.find("example.com", "v1", "gadgets");
  ASSERT_NE(t, nullptr);
  EXPECT_FALSE(t->namespaced);
  write_options wo;
  ASSERT_TRUE(
      ops.create(*t, "", json::parse(R"({"metadata":{"name":"g"}})").as_object(), admin, wo).ok());
  ASSERT_TRUE(ops.remove(type("apiextensions.k8s.io", "customresourcedefinitions"), "",
                         "gadgets.example.com", {})
                  .ok());
  EXPECT_EQ(registry.find("example.com", "v1", "gadgets"), nullptr);
  EXPECT_FALSE(store.get("example.com/gadgets", "", "g"));
}

TEST_F(KubeSimOperations, StrategicMergeOnACustomResourceIsUnsupportedMediaType) {
  auto crd =
      json::parse(
          R"({"metadata":{"name":"gadgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced",
    "names":{"plural":"gadgets","kind":"Gadget"},"versions":[{"name":"v1","served":true,"storage":true}]}})")
          .as_object();
  ASSERT_TRUE(create("customresourcedefinitions", "", crd, "apiextensions.k8s.io").ok());
  const auto* t = registry.find("example.com", "v1", "gadgets");
  write_options wo;
  ASSERT_TRUE(
      ops.create(*t, "default", json::parse(R"({"metadata":{"name":"g"}})").as_object(), admin, wo)
          .ok());
  auto r =
      ops.patch(*t, "default", "g", write_scope::main, "application/strategic-merge-patch+json",
                json::parse(R"({"spec":{}})"), admin, wo, false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, 415);
}

}  // namespace
}  // namespace kp::sim::kube
