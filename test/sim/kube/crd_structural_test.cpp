// The structural-schema rules for allOf/anyOf/oneOf/not, checked when a CRD is written, with
// kube-apiserver's field paths and wording.
#include "sim/kube/crd_structural.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <string>

namespace kp::sim::kube {
namespace {

namespace json = boost::json;

// A CRD whose spec schema is `spec_schema`.
json::object crd_with(const std::string& spec_schema) {
  return json::parse(R"({"spec":{"versions":[{"name":"v1","schema":{"openAPIV3Schema":
    {"type":"object","properties":{"spec":)" +
                     spec_schema + "}}}}]}}")
      .as_object();
}

std::string causes_of(const std::string& spec_schema) {
  return json::serialize(check_structural_junctors(crd_with(spec_schema)));
}

const std::string kRoot = "spec.versions[0].schema.openAPIV3Schema.properties[spec]";

TEST(KubeSimCrdStructural, ValueValidationsUnderJunctorsAreAccepted) {
  // The Go provider's bootDevice.size and Karpenter's quantities.
  EXPECT_EQ(causes_of(R"({"type":"object","properties":{"size":{"type":"string",
    "x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}],
    "allOf":[{"pattern":"^[0-9]+$"},{"pattern":"^\\d+(T|G|Ti|Gi)$"}]}}})"),
            "[]");
  EXPECT_EQ(causes_of(R"({"type":"object","properties":{"q":{"x-kubernetes-int-or-string":true,
    "allOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]},{"pattern":"^[0-9]+$"}]}}})"),
            "[]");
  EXPECT_EQ(causes_of(R"({"type":"object","properties":{"a":{"type":"string"},
    "l":{"type":"array","items":{"type":"string"}}},
    "oneOf":[{"required":["a"]},{"properties":{"l":{"maxItems":2,"items":{"maxLength":3}}}}],
    "not":{"properties":{"a":{"enum":["x"]}}}})"),
            "[]");
}

TEST(KubeSimCrdStructural, GenericsAndExtensionsUnderJunctorsAreForbidden) {
  std::string out = causes_of(R"({"type":"object","properties":{"a":{"type":"string"}},
    "allOf":[{"type":"object","default":{},"description":"d","nullable":true,
              "x-kubernetes-validations":[{"rule":"true"}]}],
    "anyOf":[{"x-kubernetes-preserve-unknown-fields":true,"additionalProperties":{}}],
    "oneOf":[{"x-kubernetes-list-type":"atomic"}],
    "not":{"properties":{"metadata":{"maxProperties":1}}}})");
  for (const std::string field :
       {".allOf[0].type", ".allOf[0].default", ".allOf[0].description", ".allOf[0].nullable",
        ".allOf[0].x-kubernetes-validations", ".anyOf[0].x-kubernetes-preserve-unknown-fields",
        ".anyOf[0].additionalProperties", ".oneOf[0].x-kubernetes-list-type",
        ".not.properties[metadata]"}) {
    EXPECT_NE(out.find("\"" + kRoot + field + "\""), std::string::npos) << field << " in " << out;
  }
  EXPECT_NE(out.find("Forbidden: must be empty to be structural"), std::string::npos);
  EXPECT_NE(out.find("Forbidden: must be undefined to be structural"), std::string::npos);
  EXPECT_NE(out.find("FieldValueForbidden"), std::string::npos);
}

TEST(KubeSimCrdStructural, PropertiesNamedOnlyUnderAJunctorAreRequiredOutside) {
  std::string out = causes_of(R"({"type":"object","properties":{"a":{"type":"string"}},
    "allOf":[{"properties":{"a":{"minLength":1},"b":{"minLength":1}}},
             {"properties":{"a":{"items":{"maxLength":1}}}}]})");
  EXPECT_NE(out.find("\"" + kRoot + ".properties[b]\""), std::string::npos) << out;
  EXPECT_NE(
      out.find("Required value: because it is defined in " + kRoot + ".allOf[0].properties[b]"),
      std::string::npos)
      << out;
  EXPECT_NE(out.find("\"" + kRoot + ".properties[a].items\""), std::string::npos) << out;
  EXPECT_EQ(out.find(".properties[a]\""), std::string::npos) << "a exists outside: " << out;
}

TEST(KubeSimCrdStructural, ATypeInAnyOfIsAllowedOnlyAsIntOrString) {
  EXPECT_NE(causes_of(R"({"type":"object","properties":{"n":{"x-kubernetes-int-or-string":true,
    "anyOf":[{"type":"integer"},{"type":"number"}]}}})")
                .find(".anyOf[1].type"),
            std::string::npos);
  EXPECT_NE(causes_of(R"({"type":"object","properties":{"n":{"x-kubernetes-int-or-string":true,
    "allOf":[{"pattern":"x"},{"anyOf":[{"type":"integer"},{"type":"string"}]}]}}})")
                .find(".allOf[1].anyOf[0].type"),
            std::string::npos)
      << "only the first allOf entry may hold the int-or-string anyOf";
}

}  // namespace
}  // namespace kp::sim::kube
