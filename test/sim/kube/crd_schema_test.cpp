#include "sim/kube/crd_schema.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace kp::sim::kube {
namespace {
namespace json = boost::json;

const char* kSchema = R"({"type":"object","properties":{
  "spec":{"type":"object","required":["size"],"properties":{
    "size":{"type":"integer","minimum":1,"maximum":10},
    "color":{"type":"string","enum":["red","blue"],"default":"red"},
    "name":{"type":"string","pattern":"^[a-z]+$","maxLength":5},
    "tags":{"type":"array","maxItems":2,"items":{"type":"string"}},
    "labels":{"type":"object","additionalProperties":{"type":"string"}},
    "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
    "qty":{"x-kubernetes-int-or-string":true}}}}})";

schema_outcome run(json::value& doc) {
  return apply_schema(doc, json::parse(kSchema));
}

std::string fields_of(const schema_outcome& o) {
  std::string s;
  for (const auto& c : o.causes) s += std::string(c.at("field").as_string()) + ";";
  return s;
}

TEST(KubeSimCrdSchema, DefaultsAreFilledInAndAValidObjectPasses) {
  json::value doc = json::parse(R"({"apiVersion":"x/v1","kind":"W","metadata":{"name":"a"},
    "spec":{"size":3,"labels":{"a":"b"},"free":{"any":{"thing":1}},"qty":"1Gi"}})");
  auto out = run(doc);
  EXPECT_TRUE(out.causes.empty()) << json::serialize(out.causes);
  EXPECT_TRUE(out.unknown_fields.empty());
  EXPECT_EQ(doc.at("spec").at("color"), json::value("red"));
  EXPECT_EQ(doc.at("spec").at("free").at("any").at("thing"), json::value(1));
}

TEST(KubeSimCrdSchema, EveryViolationIsReportedWithItsFieldPath) {
  json::value doc = json::parse(
      R"({"spec":{"size":11,"color":"green","name":"ABCDEFG","tags":["a","b","c"],"labels":{"x":1}}})");
  auto out = run(doc);
  EXPECT_EQ(fields_of(out), "spec.size;spec.color;spec.name;spec.name;spec.tags;spec.labels.x;")
      << json::serialize(out.causes);
}

TEST(KubeSimCrdSchema, RequiredFieldsAndTypesAreChecked) {
  json::value doc = json::parse(R"({"spec":{"color":"blue","qty":true}})");
  auto out = run(doc);
  EXPECT_EQ(fields_of(out), "spec.qty;spec.size;") << json::serialize(out.causes);
  EXPECT_EQ(std::string(out.causes[1].at("reason").as_string()), "FieldValueRequired");
}

TEST(KubeSimCrdSchema, UnknownFieldsArePrunedAndReported) {
  json::value doc = json::parse(R"({"spec":{"size":1,"extra":true},"other":1})");
  auto out = run(doc);
  ASSERT_EQ(out.unknown_fields.size(), 2u);
  EXPECT_EQ(out.unknown_fields[0], "spec.extra");
  EXPECT_EQ(out.unknown_fields[1], "other");
  EXPECT_FALSE(doc.at("spec").as_object().contains("extra"));
}

}  // namespace
}  // namespace kp::sim::kube
