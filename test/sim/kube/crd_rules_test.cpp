// Where CEL rules run on a custom object: compile checks when the CRD is written, transition
// rules only with a correlated old value, ratcheting of unchanged values, map-list correlation,
// and kube-apiserver's wording of the causes.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "sim/kube/crd_rules.hpp"

namespace kp::sim::kube {
namespace {

namespace json = boost::json;

const char* kSchema = R"json({
  "type": "object",
  "properties": {
    "spec": {
      "type": "object",
      "x-kubernetes-validations": [
        {"rule": "self.size <= 10", "message": "size must be at most 10"},
        {"rule": "self.size >= oldSelf.size", "message": "size may not shrink"},
        {"rule": "!has(self.mode) || self.mode != 'off'", "reason": "FieldValueForbidden",
         "fieldPath": ".mode"}
      ],
      "properties": {
        "size": {"type": "integer"},
        "mode": {"type": "string"},
        "items": {
          "type": "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          "items": {
            "type": "object",
            "x-kubernetes-validations": [
              {"rule": "self.weight >= oldSelf.weight", "message": "weight may not drop"},
              {"rule": "self.weight < 100"}
            ],
            "properties": {"name": {"type": "string"}, "weight": {"type": "integer"}}
          }
        }
      }
    }
  }
})json";

std::string causes(const std::string& now, const std::string& old = "") {
  auto schema = json::parse(kSchema);
  auto n = json::parse(now);
  json::value o = old.empty() ? json::value(nullptr) : json::parse(old);
  auto out = evaluate_crd_rules(n, old.empty() ? nullptr : &o, schema);
  std::string text;
  for (const auto& c : out)
    text += std::string(c.at("field").as_string()) + ": " +
            std::string(c.at("message").as_string()) + "\n";
  return text;
}

TEST(CrdRules, FailedRulesReadAsKubeApiserverWritesThem) {
  EXPECT_EQ(causes(R"({"spec":{"size":11}})"),
            "spec: Invalid value: \"object\": size must be at most 10\n");
  EXPECT_EQ(causes(R"({"spec":{"size":1,"mode":"off"}})"),
            "spec.mode: Forbidden: failed rule: !has(self.mode) || self.mode != 'off'\n");
  EXPECT_EQ(causes(R"({"spec":{}})"),
            "spec: Invalid value: \"object\": no such key: size evaluating rule: size must be "
            "at most 10\n");
}

TEST(CrdRules, TransitionRulesRunOnlyWithAnOldValue) {
  EXPECT_EQ(causes(R"({"spec":{"size":2}})"), "");
  EXPECT_EQ(causes(R"({"spec":{"size":2}})", R"({"spec":{"size":3}})"),
            "spec: Invalid value: \"object\": size may not shrink\n");
}

TEST(CrdRules, UnchangedValuesAreRatcheted) {
  // Stored before the rule existed: a write that leaves spec alone is not refused for it.
  EXPECT_EQ(causes(R"({"spec":{"size":50},"status":{"x":1}})", R"({"spec":{"size":50}})"), "");
  EXPECT_NE(causes(R"({"spec":{"size":51}})", R"({"spec":{"size":50}})"), "");
}

TEST(CrdRules, MapListItemsCorrelateByTheirKeys) {
  const std::string old =
      R"({"spec":{"size":1,"items":[{"name":"a","weight":5},{"name":"b","weight":5}]}})";
  // Reordered and one lowered: only b is judged against its old self.
  EXPECT_EQ(
      causes(R"({"spec":{"size":1,"items":[{"name":"b","weight":4},{"name":"a","weight":5}]}})",
             old),
      "spec.items[0]: Invalid value: \"object\": weight may not drop\n");
  // A new item has no old self: its transition rule does not run.
  EXPECT_EQ(causes(R"({"spec":{"size":1,"items":[{"name":"c","weight":1}]}})", old), "");
  EXPECT_EQ(causes(R"({"spec":{"size":1,"items":[{"name":"c","weight":100}]}})", old),
            "spec.items[0]: Invalid value: \"object\": failed rule: self.weight < 100\n");
}

TEST(CrdRules, CrdsWithRulesTheInterpreterCannotEvaluateAreRefused) {
  auto crd = json::parse(R"json({"spec":{"versions":[{"name":"v1","schema":{"openAPIV3Schema":{
    "type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[
      {"rule":"self.size <= 10"},
      {"rule":"quantity(self.q).isGreaterThan(quantity('1'))"},
      {"rule":"self.size > 1", "messageExpression":"'too small: ' + string(self.size)"}]}}}}}]}})json");
  auto out = check_crd_rules(crd.as_object());
  ASSERT_EQ(out.size(), 2u) << json::serialize(out);
  EXPECT_EQ(out[0].at("field").as_string(),
            "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[1]"
            ".rule");
  EXPECT_NE(
      std::string(out[0].at("message").as_string()).find("undeclared reference to 'quantity'"),
      std::string::npos);
  EXPECT_NE(std::string(out[1].at("message").as_string()).find("messageExpression"),
            std::string::npos);
}

}  // namespace
}  // namespace kp::sim::kube
