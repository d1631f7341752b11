#include <gtest/gtest.h>

#include "test/core/gotemplate/render.hpp"

namespace kp::gotemplate {
namespace {

using testing::render;

value sample() {
  value rec = value::record();
  rec.field("Hostname", "node-1").field("Zone", "pve1");
  return value::map({{"Name", "world"},
                     {"L", value::list({"a", "b"})},
                     {"Five", value::list({"a", "b", "c", "d", "e"})},
                     {"M", value::map({{"b", 2}, {"a", 1}})},
                     {"S", value::string_map({{"k", "v"}})},
                     {"Rec", rec},
                     {"Empty", value::list()},
                     {"Zero", 0},
                     {"Nil", value()}});
}

TEST(GotemplateExecution, TextAndActionsPrintValuesAsGoDoes) {
  EXPECT_EQ(render("Hello {{ .Name }}!", sample()), "Hello world!");
  EXPECT_EQ(render("{{ .L }} {{ .M }} {{ .Rec }}", sample()), "[a b] map[a:1 b:2] {node-1 pve1}");
  EXPECT_EQ(render("{{ .Missing }}|{{ .Nil }}|{{ print .Missing }}|{{ .S.missing }}|", sample()),
            "<no value>|<no value>|<nil>|<no value>|");
  EXPECT_EQ(render("{{ .Missing.Deeper.Still }}", sample()), "<no value>");
  EXPECT_EQ(render("{{ . }}"), "<no value>");
}

TEST(GotemplateExecution, TrimMarkersRemoveAdjacentWhitespaceIncludingNewlines) {
  EXPECT_EQ(render("a  \n {{- 1 -}} \n\t b"), "a1b");
  EXPECT_EQ(render("a {{- 1 }} b"), "a1 b");
  EXPECT_EQ(render("a {{ 1 -}} b"), "a 1b");
  EXPECT_EQ(render("x\n  {{- /* comment */ -}}\n  y"), "xy");
  EXPECT_EQ(render("{{-3}}"), "-3");  // no space after "-": a negative number, not a trim marker
  EXPECT_EQ(render("a {{- \"b\" -}}\n"), "ab");
}

TEST(GotemplateExecution, LiteralsOfEveryKind) {
  EXPECT_EQ(render(R"({{ "a\tb\u00e9\x41" }})"),
            "a\tb\xc3\xa9"
            "A");
  EXPECT_EQ(render("{{ `raw\\n` }}"), "raw\\n");
  EXPECT_EQ(render("{{ 'a' }} {{ '\\n' }}"), "97 10");
  EXPECT_EQ(render("{{ 0x1F }} {{ 0o17 }} {{ 0b101 }} {{ 1_000 }} {{ -5 }} {{ +5 }}"),
            "31 15 5 1000 -5 5");
  EXPECT_EQ(render("{{ 1.5 }} {{ 1e3 }} {{ 1.0 }} {{ 1e6 }} {{ .5 }}"), "1.5 1000 1 1e+06 0.5");
  EXPECT_EQ(render("{{ true }} {{ false }}"), "true false");
}

TEST(GotemplateExecution, IfElseIfElseChooseTheFirstTrueBranch) {
  const char* t = "{{ if eq .N 1 }}one{{ else if eq .N 2 }}two{{ else }}many{{ end }}";
  EXPECT_EQ(render(t, value::map({{"N", 1}})), "one");
  EXPECT_EQ(render(t, value::map({{"N", 2}})), "two");
  EXPECT_EQ(render(t, value::map({{"N", 3}})), "many");
  EXPECT_EQ(
      render("{{ if .Empty }}y{{ else }}n{{ end }}{{ if .Rec }}y{{ end }}{{ if .Zero }}y{{ end }}",
             sample()),
      "ny");
}

TEST(GotemplateExecution, RangeOverListsMapsAndIntegersWithVariablesAndElse) {
  EXPECT_EQ(render("{{ range $i, $e := .L }}{{ $i }}:{{ $e }},{{ end }}", sample()), "0:a,1:b,");
  EXPECT_EQ(render("{{ range $k, $v := .M }}{{ $k }}={{ $v }};{{ end }}", sample()), "a=1;b=2;");
  EXPECT_EQ(render("{{ range .M }}{{ . }}{{ end }}", sample()), "12");
  EXPECT_EQ(render("{{ range $v := .L }}{{ $v }}{{ end }}", sample()), "ab");
  EXPECT_EQ(render("{{ range .Empty }}x{{ else }}none{{ end }}", sample()), "none");
  EXPECT_EQ(render("{{ range .Missing }}x{{ else }}none{{ end }}", sample()), "none");
  EXPECT_EQ(render("{{ range 3 }}{{ . }}{{ end }}"), "012");
  EXPECT_EQ(render("{{ range .L }}{{ $.Name }}{{ end }}", sample()), "worldworld");
}

TEST(GotemplateExecution, BreakAndContinueControlTheInnermostRange) {
  EXPECT_EQ(render("{{ range .Five }}{{ if eq . \"b\" }}{{ continue }}{{ end }}"
                   "{{ if eq . \"d\" }}{{ break }}{{ end }}{{ . }}{{ end }}",
                   sample()),
            "ac");
  EXPECT_EQ(render("{{ range .L }}{{ range $.Five }}{{ if eq . \"b\" }}{{ break }}{{ end }}{{ . }}"
                   "{{ end }}|{{ end }}",
                   sample()),
            "a|a|");
}

TEST(GotemplateExecution, WithSetsDotAndFallsBackToElse) {
  EXPECT_EQ(render("{{ with .Rec }}{{ .Hostname }}{{ end }}", sample()), "node-1");
  EXPECT_EQ(render("{{ with .Missing }}x{{ else }}none{{ end }}", sample()), "none");
  EXPECT_EQ(render("{{ with .Missing }}x{{ else with .Name }}{{ . }}{{ end }}", sample()), "world");
  EXPECT_EQ(render("{{ with $x := .Name }}{{ $x }}{{ end }}", sample()), "world");
}

TEST(GotemplateExecution, VariablesAreScopedToTheirControlStructure) {
  EXPECT_EQ(render("{{ $x := 1 }}{{ $x = 2 }}{{ $x }}"), "2");
  EXPECT_EQ(render("{{ $x := 1 }}{{ if true }}{{ $x = 2 }}{{ end }}{{ $x }}"), "2");
  EXPECT_EQ(render("{{ $x := 1 }}{{ if true }}{{ $x := 2 }}{{ $x }}{{ end }}{{ $x }}"), "21");
  EXPECT_EQ(render("{{ $x := .Rec }}{{ $x.Zone }}", sample()), "pve1");
  EXPECT_EQ(render("{{ $ }}", value("root")), "root");
}

TEST(GotemplateExecution, PipelinesPassTheValueAsTheLastArgument) {
  EXPECT_EQ(render("{{ .Name | printf \"%s!\" }}", sample()), "world!");
  EXPECT_EQ(render("{{ \"x\" | printf \"%s-%s\" \"a\" }}"), "a-x");
  EXPECT_EQ(render("{{ .Name | upper | printf \"<%s>\" }}", sample()), "<WORLD>");
  EXPECT_EQ(render("{{ (index .L 1) }}{{ (.M).a }}{{ (printf \"%d\" 3 | len) }}", sample()), "b11");
}

TEST(GotemplateExecution, AndOrShortCircuitAndReturnTheDecidingValue) {
  EXPECT_EQ(render("{{ and 1 0 (index .L 99) }}", sample()), "0");
  EXPECT_EQ(render("{{ or 0 \"\" \"x\" }}"), "x");
  EXPECT_EQ(render("{{ or .Missing \"d\" }}", sample()), "d");
  EXPECT_EQ(render("{{ and 1 2 }}"), "2");
  EXPECT_EQ(render("{{ or 1 (index .L 99) }}", sample()), "1");
}

TEST(GotemplateExecution, NamedTemplatesAndBlocks) {
  EXPECT_EQ(render("{{ define \"T\" }}[{{ . }}]{{ end }}{{ template \"T\" .Name }}", sample()),
            "[world]");
  EXPECT_EQ(render("{{ define \"T\" }}{{ . }}{{ end }}{{ template \"T\" }}"), "<no value>");
  EXPECT_EQ(render("{{ block \"B\" . }}default {{ .Name }}{{ end }}", sample()), "default world");
  EXPECT_EQ(render("{{ define \"a\" }}A{{ template \"b\" }}{{ end }}{{ define \"b\" }}B{{ end }}"
                   "{{ template \"a\" }}"),
            "AB");
  // A bounded recursion through a template is fine.
  EXPECT_EQ(
      render("{{ define \"r\" }}{{ if . }}{{ len . }}{{ template \"r\" (slice . 1) }}{{ end }}"
             "{{ end }}{{ template \"r\" .Five }}",
             sample()),
      "54321");
}

TEST(GotemplateExecution, TemplateSetsCanBeExtendedAndRunByName) {
  auto t = template_set::parse("main", "{{ template \"part\" . }}");
  ASSERT_TRUE(t.ok());
  ASSERT_TRUE(t->add("part", "<{{ . }}>").ok());
  EXPECT_TRUE(t->contains("part"));
  EXPECT_EQ(*t->execute(value("x")), "<x>");
  EXPECT_EQ(*t->execute("part", value("y")), "<y>");
  EXPECT_FALSE(t->execute("nope", value()).ok());
}

TEST(GotemplateExecutionErrors, NameTheTemplateLineColumnNodeAndReason) {
  EXPECT_EQ(render("{{ index .L 5 }}", sample()),
            "ERROR: template: t:1:3: executing \"t\" at <index>: error calling index: index out "
            "of range: 5");
  EXPECT_EQ(render("a\n\n  {{ join .L }}", sample()),
            "ERROR: template: t:3:5: executing \"t\" at <join>: wrong number of args for join: "
            "want 2 got 1");
  EXPECT_EQ(render("{{ upper 5 }}"),
            "ERROR: template: t:1:9: executing \"t\" at <5>: expected string; found 5");
  EXPECT_EQ(render("{{ nil }}"),
            "ERROR: template: t:1:3: executing \"t\" at <nil>: nil is not a command");
  EXPECT_EQ(render("{{ template \"nope\" }}"),
            "ERROR: template: t:1:12: executing \"t\" at <{{template \"nope\"}}>: template "
            "\"nope\" not defined");
  EXPECT_EQ(render("{{ .Rec.Nope }}", sample()),
            "ERROR: template: t:1:3: executing \"t\" at <.Rec.Nope>: can't evaluate field Nope in "
            "type struct");
  EXPECT_EQ(render("{{ .Name.X }}", sample()),
            "ERROR: template: t:1:3: executing \"t\" at <.Name.X>: can't evaluate field X in type "
            "string");
  EXPECT_EQ(render("{{ range .Name }}{{ end }}", sample()),
            "ERROR: template: t:1:9: executing \"t\" at <.Name>: range can't iterate over world");
  EXPECT_EQ(render("{{ eq 1 \"a\" }}"),
            "ERROR: template: t:1:3: executing \"t\" at <eq>: error calling eq: incompatible types "
            "for comparison");
  EXPECT_EQ(render("{{ .Name 1 }}", sample()),
            "ERROR: template: t:1:3: executing \"t\" at <.Name>: Name is not a method but has "
            "arguments");
  EXPECT_EQ(
      render("{{ 1 2 }}"),
      "ERROR: template: t:1:3: executing \"t\" at <1>: can't give argument to non-function 1");
  EXPECT_EQ(render("{{ call .Name }}", sample()),
            "ERROR: template: t:1:3: executing \"t\" at <call>: error calling call: non-function "
            "of type string");
}

TEST(GotemplateExecutionErrors, ErrorsInsideNamedTemplatesNameThem) {
  EXPECT_EQ(render("{{ define \"inner\" }}\n{{ index . 9 }}{{ end }}{{ template \"inner\" .L }}",
                   sample(), "user-data"),
            "ERROR: template: user-data:2:3: executing \"inner\" at <index>: error calling index: "
            "index out of range: 9");
}

TEST(GotemplateExecutionErrors, SelfRecursiveTemplatesStopAtTheDepthLimit) {
  std::string out =
      render("{{ define \"r\" }}{{ template \"r\" . }}{{ end }}{{ template \"r\" . }}");
  EXPECT_NE(out.find("exceeded maximum template depth (100)"), std::string::npos) << out;
  std::string mutual = render(
      "{{ define \"a\" }}x{{ template \"b\" }}{{ end }}{{ define \"b\" }}{{ template \"a\" }}{{ "
      "end "
      "}}{{ template \"a\" }}");
  EXPECT_NE(mutual.find("exceeded maximum template depth"), std::string::npos) << mutual;
}

TEST(GotemplateExecutionErrors, RunawayLoopsAndOutputHitTheirLimits) {
  auto t = template_set::parse("t", "{{ range 100000000 }}{{ end }}");
  ASSERT_TRUE(t.ok());
  t->set_limits({.max_template_depth = 100,
                 .max_nesting_depth = 1000,
                 .max_output_bytes = 1 << 20,
                 .max_steps = 10000});
  auto r = t->execute(value());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("execution exceeded 10000 steps"), std::string::npos);
  auto big = template_set::parse("t", "{{ range 1000 }}0123456789{{ end }}");
  ASSERT_TRUE(big.ok());
  big->set_limits({.max_template_depth = 100,
                   .max_nesting_depth = 1000,
                   .max_output_bytes = 5000,
                   .max_steps = 1000000});
  auto b = big->execute(value());
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("output exceeds 5000 bytes"), std::string::npos);
}

}  // namespace
}  // namespace kp::gotemplate
