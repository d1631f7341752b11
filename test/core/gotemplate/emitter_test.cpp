#include <gtest/gtest.h>

#include "core/gotemplate/json_emitter.hpp"
#include "core/gotemplate/yaml_emitter.hpp"

namespace kp::gotemplate {
namespace {

value taint_record(const std::string& key, const std::string& effect) {
  value t = value::record();
  t.field("Key", key, {.yaml_name = "key", .json_name = "", .omit_empty = true});
  t.field("Value", "", {.yaml_name = "value", .json_name = "", .omit_empty = true});
  t.field("Effect", effect, {.yaml_name = "effect", .json_name = "", .omit_empty = true});
  return t;
}

TEST(GotemplateJson, CompactJsonSortsMapKeysAndEscapesHtmlCharactersAsGoDoes) {
  value v = value::map({{"b", value::list({1, 2.5, true, value()})}, {"a", "<x&y>"}});
  EXPECT_EQ(to_json(v), R"({"a":"\u003cx\u0026y\u003e","b":[1,2.5,true,null]})");
}

TEST(GotemplateJson, PrettyJsonIndentsWithTwoSpaces) {
  value v =
      value::map({{"a", 1}, {"b", value::list({"x"})}, {"c", value::map()}, {"d", value::list()}});
  EXPECT_EQ(to_pretty_json(v),
            "{\n  \"a\": 1,\n  \"b\": [\n    \"x\"\n  ],\n  \"c\": {},\n  \"d\": []\n}");
}

TEST(GotemplateJson, RecordsUseJsonNamesFieldOrderAndOmitEmpty) {
  value r = value::record();
  r.field("Zeta", 1).field("Alpha", "",
                           {.yaml_name = "", .json_name = "alpha", .omit_empty = true});
  r.field("Beta", "b", {.yaml_name = "", .json_name = "beta", .omit_empty = false});
  EXPECT_EQ(to_json(r), R"({"Zeta":1,"beta":"b"})");
}

TEST(GotemplateJson, FloatsAndControlCharactersFollowEncodingJson) {
  EXPECT_EQ(to_json(value(1e21)), "1e+21");
  EXPECT_EQ(to_json(value(1e20)), "100000000000000000000");
  EXPECT_EQ(to_json(value(0.0000001)), "1e-7");
  EXPECT_EQ(to_json(value(1.5)), "1.5");
  EXPECT_EQ(to_json(value("a\nb\t\x01")), R"("a\nb\t\u0001")");
}

TEST(GotemplateYaml, PrettyYamlIndentsTwoAndIndentsSequencesUnderTheirKey) {
  value v =
      value::map({{"b", value::list({"x", "z"})}, {"a", 1}, {"c", value::map({{"d", "true"}})}});
  EXPECT_EQ(to_yaml(v, {.indent = 2}), "a: 1\nb:\n  - x\n  - z\nc:\n  d: \"true\"\n");
}

TEST(GotemplateYaml, DefaultYamlIndentsFourLikeYamlV3) {
  value v = value::map({{"b", value::list({"x"})}, {"c", value::map({{"d", 1}})}});
  EXPECT_EQ(to_yaml(v), "b:\n    - x\nc:\n    d: 1\n");
}

TEST(GotemplateYaml, MappingsInSequencesStartAfterTheDashAtAnyIndent) {
  value v = value::map({{"taints", value::list({taint_record("k", "NoSchedule")})}});
  EXPECT_EQ(to_yaml(v, {.indent = 2}), "taints:\n  - key: k\n    effect: NoSchedule\n");
  EXPECT_EQ(to_yaml(v, {.indent = 4}), "taints:\n    - key: k\n      effect: NoSchedule\n");
  value nested = value::list({value::map({{"a", value::map({{"b", 1}})}})});
  EXPECT_EQ(to_yaml(nested, {.indent = 4}), "- a:\n    b: 1\n");
  EXPECT_EQ(to_yaml(value::list({value::list({1, 2})}), {.indent = 2}), "- - 1\n  - 2\n");
}

TEST(GotemplateYaml, StringsAreQuotedOnlyWhenTheyWouldReadBackAsSomethingElse) {
  auto y = [](const std::string& s) { return to_yaml(value(s), {.indent = 2}); };
  EXPECT_EQ(y("plain text"), "plain text\n");
  EXPECT_EQ(y(""), "\"\"\n");
  EXPECT_EQ(y("100"), "\"100\"\n");
  EXPECT_EQ(y("0755"), "\"0755\"\n");
  EXPECT_EQ(y("1.5"), "\"1.5\"\n");
  EXPECT_EQ(y("true"), "\"true\"\n");
  EXPECT_EQ(y("yes"), "\"yes\"\n");
  EXPECT_EQ(y("y"), "\"y\"\n");  // yaml.v3 still quotes YAML 1.1 booleans
  EXPECT_EQ(y("off"), "\"off\"\n");
  EXPECT_EQ(y("null"), "\"null\"\n");
  EXPECT_EQ(y("~"), "\"~\"\n");
  EXPECT_EQ(y("2024-01-02"), "\"2024-01-02\"\n");
  EXPECT_EQ(y("2024-01-02T10:00:00Z"), "\"2024-01-02T10:00:00Z\"\n");
  EXPECT_EQ(y("2024-01-02 note"), "2024-01-02 note\n");
  EXPECT_EQ(y("1:20"), "\"1:20\"\n");
  EXPECT_EQ(y("key: value"), "'key: value'\n");
  EXPECT_EQ(y("- item"), "'- item'\n");
  EXPECT_EQ(y("*star"), "'*star'\n");
  EXPECT_EQ(y("it's # here"), "'it''s # here'\n");
  EXPECT_EQ(y(" leading"), "' leading'\n");
  EXPECT_EQ(y("a\tb"), "\"a\\tb\"\n");
  EXPECT_EQ(y("ALL=(ALL) NOPASSWD:ALL"), "ALL=(ALL) NOPASSWD:ALL\n");
  EXPECT_EQ(y("proxmox://region/100"), "proxmox://region/100\n");
  EXPECT_EQ(y("10%"), "10%\n");
  EXPECT_EQ(y("-1x"), "-1x\n");
}

TEST(GotemplateYaml, MultiLineStringsBecomeLiteralBlocksWithChomping) {
  value v = value::map({{"a", "l1\nl2\n"}, {"b", "l1\nl2"}, {"c", "l1\n\n"}, {"d", " x\ny"}});
  EXPECT_EQ(to_yaml(v, {.indent = 2}),
            "a: |\n  l1\n  l2\nb: |-\n  l1\n  l2\nc: |+\n  l1\n\nd: |2-\n   x\n  y\n");
  EXPECT_EQ(to_yaml(value::list({"a\nb"}), {.indent = 4}), "- |-\n  a\n  b\n");
  EXPECT_EQ(to_yaml(value::map({{"k", "a\nb"}}), {.indent = 4}), "k: |-\n    a\n    b\n");
  EXPECT_EQ(to_yaml(value::map({{"k", "trailing \nspace"}}), {.indent = 2}),
            "k: \"trailing \\nspace\"\n");
}

TEST(GotemplateYaml, ScalarsAndEmptyCollections) {
  EXPECT_EQ(to_yaml(value()), "null\n");
  EXPECT_EQ(to_yaml(value(3)), "3\n");
  EXPECT_EQ(to_yaml(value(1e6)), "1e+06\n");
  EXPECT_EQ(to_yaml(value(0.5)), "0.5\n");
  EXPECT_EQ(to_yaml(value::list()), "[]\n");
  EXPECT_EQ(to_yaml(value::map({{"e", value::map()}, {"l", value::list()}, {"z", value()}})),
            "e: {}\nl: []\nz: null\n");
}

TEST(GotemplateYaml, MapKeysFollowYamlV3NaturalOrder) {
  EXPECT_TRUE(yaml_key_less("a2", "a10"));
  EXPECT_FALSE(yaml_key_less("a10", "a2"));
  EXPECT_TRUE(yaml_key_less("B", "a"));
  EXPECT_TRUE(yaml_key_less("a", "ab"));
  value v = value::map({{"node10", 1}, {"node9", 2}, {"imagefs.available", "15%"}});
  EXPECT_EQ(to_yaml(v, {.indent = 2}), "imagefs.available: 15%\nnode9: 2\nnode10: 1\n");
}

TEST(GotemplateYaml, RecordsKeepFieldOrderUseYamlNamesAndOmitEmptyFields) {
  value r = value::record();
  r.field("Hostname", "h")
      .field("InstanceUUID", "")
      .field("CPU", 0, {.yaml_name = "cpu", .json_name = "", .omit_empty = true});
  r.field("Tags", value::strings({"t1"}));
  EXPECT_EQ(to_yaml(r, {.indent = 2}), "hostname: h\ninstanceuuid: \"\"\ntags:\n  - t1\n");
}

TEST(GotemplateYaml, PointerFieldsAreOmittedOnlyWhenNull) {
  field_options ptr{
      .yaml_name = "failSwapOn", .json_name = "failSwapOn", .omit_empty = true, .pointer = true};
  value r = value::record();
  r.field("FailSwapOn", false, ptr)
      .field("MaxPods", value(),
             {.yaml_name = "maxPods", .json_name = "maxPods", .omit_empty = true, .pointer = true});
  EXPECT_EQ(to_yaml(r, {.indent = 2}), "failSwapOn: false\n");
  EXPECT_EQ(to_json(r), R"({"failSwapOn":false})");
}

}  // namespace
}  // namespace kp::gotemplate
