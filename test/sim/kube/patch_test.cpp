#include "sim/kube/patch.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace kp::sim::kube {
namespace {
namespace json = boost::json;

TEST(KubeSimMergePatch, NullDeletesKeysAndListsAreReplaced) {
  json::value doc = json::parse(R"({"a":1,"b":{"c":2,"d":3},"l":[1,2]})");
  apply_merge_patch(doc, json::parse(R"({"a":null,"b":{"c":5},"l":[9]})"));
  EXPECT_EQ(doc, json::parse(R"({"b":{"c":5,"d":3},"l":[9]})"));
}

TEST(KubeSimJsonPatch, AppliesEveryOperation) {
  json::value doc = json::parse(R"({"a":{"b":1},"l":[1,2,3]})");
  auto s = apply_json_patch(doc, json::parse(R"([
    {"op":"add","path":"/a/c","value":2},
    {"op":"replace","path":"/a/b","value":7},
    {"op":"remove","path":"/l/0"},
    {"op":"add","path":"/l/-","value":4},
    {"op":"copy","from":"/a/b","path":"/x"},
    {"op":"move","from":"/x","path":"/y"},
    {"op":"test","path":"/y","value":7}])"));
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(doc, json::parse(R"({"a":{"b":7,"c":2},"l":[2,3,4],"y":7})"));
}

TEST(KubeSimJsonPatch, AFailedTestIsUnprocessable) {
  json::value doc = json::parse(R"({"a":1})");
  auto s = apply_json_patch(doc, json::parse(R"([{"op":"test","path":"/a","value":2}])"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, 422);
}

TEST(KubeSimJsonPatch, MalformedOperationsAreBadRequests) {
  json::value doc = json::parse(R"({"a":1})");
  EXPECT_EQ(apply_json_patch(doc, json::parse(R"({"op":"add"})")).error().code, 400);
  EXPECT_EQ(apply_json_patch(doc, json::parse(R"([{"op":"jump","path":"/a"}])")).error().code, 400);
  EXPECT_EQ(apply_json_patch(doc, json::parse(R"([{"op":"remove","path":"/zz"}])")).error().code,
            422);
}

TEST(KubeSimStrategicMergePatch, MergesContainersByNameAndConditionsByType) {
  json::value doc = json::parse(
      R"({"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]},
          "status":{"conditions":[{"type":"Ready","status":"False"}]}})");
  auto s = apply_strategic_merge_patch(
      doc, json::parse(
               R"({"spec":{"containers":[{"name":"b","image":"z"},{"name":"c","image":"w"}]},
          "status":{"conditions":[{"type":"Ready","status":"True"}]}})"));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(
      doc,
      json::parse(
          R"({"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","image":"z"},{"name":"c","image":"w"}]},
          "status":{"conditions":[{"type":"Ready","status":"True"}]}})"));
}

TEST(KubeSimStrategicMergePatch, HonoursDeleteDirectivesAndMergesFinalizers) {
  json::value doc = json::parse(
      R"({"metadata":{"finalizers":["a"]},"spec":{"containers":[{"name":"a"},{"name":"b"}],"taints":[{"key":"x"}]}})");
  auto s = apply_strategic_merge_patch(
      doc,
      json::parse(
          R"({"metadata":{"finalizers":["b"]},"spec":{"containers":[{"name":"a","$patch":"delete"}],"taints":[{"key":"y"}]}})"));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(
      doc,
      json::parse(
          R"({"metadata":{"finalizers":["a","b"]},"spec":{"containers":[{"name":"b"}],"taints":[{"key":"y"}]}})"));
  s = apply_strategic_merge_patch(
      doc,
      json::parse(
          R"({"$deleteFromPrimitiveList/finalizers":["a"],"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]}})"));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(doc.at("metadata").at("finalizers"), json::parse(R"(["b"])"));
}

}  // namespace
}  // namespace kp::sim::kube
