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

// The Go provider's bootDevice.size: int-or-string, with two patterns under allOf.
const char* kJunctorSchema = R"({"type":"object","properties":{"spec":{"type":"object",
  "properties":{
    "size":{"type":"string","x-kubernetes-int-or-string":true,
            "anyOf":[{"type":"integer"},{"type":"string"}],
            "allOf":[{"pattern":"^[0-9]+[A-Za-z]*$"},{"pattern":"^\\d+(T|G|Ti|Gi)$"}]},
    "pair":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},
            "oneOf":[{"required":["a"]},{"required":["b"]}]},
    "either":{"type":"string","anyOf":[{"enum":["x"]},{"maxLength":1}]},
    "word":{"type":"string","not":{"enum":["forbidden"]}},
    "limits":{"type":"object","properties":{"cpu":{"type":"integer","default":1}},
              "allOf":[{"properties":{"cpu":{"maximum":8}},"required":["cpu"]}]}}}}})";

schema_outcome run_junctors(json::value& doc) {
  return apply_schema(doc, json::parse(kJunctorSchema));
}

TEST(KubeSimCrdSchema, PatternsUnderAllOfApplyToStringsAndIntegersPassThem) {
  for (const char* ok :
       {R"({"spec":{"size":30}})", R"({"spec":{"size":"50Gi"}})", R"({"spec":{"size":"1T"}})"}) {
    json::value doc = json::parse(ok);
    auto out = run_junctors(doc);
    EXPECT_TRUE(out.causes.empty()) << ok << ": " << json::serialize(out.causes);
  }
  json::value doc = json::parse(R"({"spec":{"size":"50Mi"}})");
  auto out = run_junctors(doc);
  ASSERT_EQ(out.causes.size(), 1u) << json::serialize(out.causes);
  EXPECT_EQ(fields_of(out), "spec.size;");
  EXPECT_NE(json::serialize(out.causes[0]).find("should match '^\\\\d+(T|G|Ti|Gi)$'"),
            std::string::npos)
      << json::serialize(out.causes);
  doc = json::parse(R"({"spec":{"size":"big"}})");
  EXPECT_EQ(fields_of(run_junctors(doc)), "spec.size;spec.size;") << "both allOf patterns fail";
}

TEST(KubeSimCrdSchema, AnyOfNeedsOneBranchOneOfExactlyOneAndNotNone) {
  auto causes_of = [](const char* text) {
    json::value doc = json::parse(text);
    return json::serialize(run_junctors(doc).causes);
  };
  EXPECT_EQ(causes_of(R"({"spec":{"either":"x","word":"fine","pair":{"a":"1"}}})"), "[]");
  EXPECT_EQ(causes_of(R"({"spec":{"either":"y"}})"), "[]") << "maxLength 1 is enough";
  EXPECT_NE(causes_of(R"({"spec":{"either":"yy"}})").find("must validate at least one schema"),
            std::string::npos);
  EXPECT_NE(causes_of(R"({"spec":{"pair":{"a":"1","b":"2"}}})").find("one and only one schema"),
            std::string::npos);
  EXPECT_NE(causes_of(R"({"spec":{"pair":{}}})").find("one and only one schema"),
            std::string::npos);
  EXPECT_NE(causes_of(R"({"spec":{"word":"forbidden"}})").find("must not validate the schema"),
            std::string::npos);
}

TEST(KubeSimCrdSchema, NestedPropertiesUnderAllOfValidateButNeverDefaultOrPrune) {
  json::value doc = json::parse(R"({"spec":{"limits":{"cpu":9}}})");
  auto out = run_junctors(doc);
  EXPECT_EQ(fields_of(out), "spec.limits.cpu;") << json::serialize(out.causes);
  doc = json::parse(R"({"spec":{"limits":{}}})");
  out = run_junctors(doc);
  EXPECT_TRUE(out.causes.empty()) << "the structural default fills cpu before allOf requires it: "
                                  << json::serialize(out.causes);
  EXPECT_EQ(doc.at("spec").at("limits").at("cpu"), json::value(1));
}

}  // namespace
}  // namespace kp::sim::kube
