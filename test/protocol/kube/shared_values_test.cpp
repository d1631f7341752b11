#include "protocol/kube/shared_vector.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/model/pod.hpp"

#include "protocol/kube/codec.hpp"
#include "protocol/kube/core_v1.hpp"
#include "protocol/kube/shared_optional.hpp"

namespace kp::kube {
namespace {

TEST(SharedVector, ACopySharesTheItemsUntilOneOfThemIsChanged) {
  shared_vector<std::string> a{"x", "y"};
  shared_vector<std::string> b = a;
  EXPECT_TRUE(b.shares_items_with(a));
  EXPECT_FALSE(a.sole_holder());
  b.push_back("z");
  EXPECT_FALSE(b.shares_items_with(a));
  EXPECT_EQ(a.items(), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(b.items(), (std::vector<std::string>{"x", "y", "z"}));
  shared_vector<std::string> c = a;
  c[0] = "changed";
  EXPECT_EQ(a[0], "x");
  EXPECT_EQ(c[0], "changed");
  EXPECT_TRUE(a.sole_holder());
}

TEST(SharedVector, EqualItemsCompareEqualWhetherSharedOrNot) {
  shared_vector<std::string> a{"1", "2"};
  shared_vector<std::string> b{"1", "2"};
  EXPECT_EQ(a, b);
  EXPECT_FALSE(a.shares_items_with(b));
  b = std::vector<std::string>{"1", "3"};
  EXPECT_NE(a, b);
  shared_vector<std::string> empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty, shared_vector<std::string>(std::vector<std::string>{}));
  // No allocation for no items.
  EXPECT_TRUE(shared_vector<std::string>(std::vector<std::string>{}).shares_items_with(empty));
}

TEST(SharedMap, ACopySharesTheEntriesUntilOneOfThemIsChanged) {
  model::shared_label_map a{{"app", "web"}, {"tier", "front"}};
  model::shared_label_map b = a;
  EXPECT_TRUE(b.shares_entries_with(a));
  EXPECT_EQ(b.at("app"), "web");
  EXPECT_EQ(b.count("tier"), 1u);
  EXPECT_EQ(b.erase("absent"), 0u);
  EXPECT_TRUE(b.shares_entries_with(a)) << "erasing nothing copies nothing";
  b["app"] = "api";
  EXPECT_FALSE(b.shares_entries_with(a));
  EXPECT_EQ(a.at("app"), "web");
  EXPECT_EQ(b.at("app"), "api");
  EXPECT_TRUE(a.sole_holder());
  EXPECT_THROW((void)a.at("absent"), std::out_of_range);
  const model::label_map& read = a;
  EXPECT_EQ(read.size(), 2u);
  model::shared_label_map empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.find("app"), empty.end());
  EXPECT_EQ(empty, model::shared_label_map(model::label_map{}));
  EXPECT_EQ(model::shared_label_map(read), a);
}

TEST(SharedOptional, ACopySharesTheValueUntilOneOfThemIsChanged) {
  shared_optional<std::string> absent;
  EXPECT_FALSE(absent);
  EXPECT_EQ(absent, shared_optional<std::string>(std::nullopt));
  shared_optional<std::string> a = std::string("x");
  auto b = a;
  EXPECT_TRUE(b.shares_value_with(a));
  EXPECT_EQ(*b, "x");
  *b = "y";
  EXPECT_EQ(*a, "x");
  EXPECT_EQ(*b, "y");
  EXPECT_NE(a, b);
  b = std::string("x");
  EXPECT_EQ(a, b);
  EXPECT_FALSE(b.shares_value_with(a));
  b.reset();
  EXPECT_NE(a, b);
}

TEST(SharedVector, APodsSharedPartsDecodeAndEncodeAsArrays) {
  const std::string json = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},
    "spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"100m"}}}],
            "tolerations":[{"key":"k","operator":"Exists"}],"volumes":[{"name":"data"}],
            "affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
              {"topologyKey":"kubernetes.io/hostname"}]}}}})";
  auto pod = decode<kube::pod>(json);
  ASSERT_TRUE(pod) << pod.error().message;
  ASSERT_EQ(pod->spec.containers.size(), 1u);
  EXPECT_EQ(pod->spec.containers[0].resources.requests.at("cpu"), "100m");
  EXPECT_EQ(pod->spec.tolerations[0].key, "k");
  EXPECT_TRUE(pod->spec.init_containers.empty());
  ASSERT_TRUE(pod->spec.affinity && pod->spec.affinity->pod_anti_affinity);
  EXPECT_EQ(pod->spec.affinity->pod_anti_affinity->required[0].topology_key,
            "kubernetes.io/hostname");
  auto again = decode<kube::pod>(encode(*pod));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(*again, *pod);
  auto bad = decode<kube::pod>(R"({"spec":{"containers":{"name":"app"}}})");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("spec.containers"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace kp::kube
