#include <gtest/gtest.h>

#include "core/gotemplate/template_set.hpp"

namespace kp::gotemplate {
namespace {

std::string parse_error(std::string_view text, const std::string& name = "user-data") {
  auto t = template_set::parse(name, text);
  if (t) return "parsed";
  EXPECT_EQ(t.error().code, "template_parse");
  return t.error().message;
}

TEST(GotemplateParseErrors, NameTheTemplateTheLineAndGosReason) {
  EXPECT_EQ(parse_error("#cloud-config\nhostname: x\nname: {{ .A }\n"),
            "template: user-data:3: unexpected \"}\" in operand");
  EXPECT_EQ(parse_error("{{ if .A }}x"), "template: user-data:1: unexpected EOF");
  EXPECT_EQ(parse_error("a\n{{ end }}"), "template: user-data:2: unexpected {{end}}");
  EXPECT_EQ(parse_error("{{ else }}"), "template: user-data:1: unexpected {{else}}");
  EXPECT_EQ(parse_error("\n\n{{ foo .A }}"), "template: user-data:3: function \"foo\" not defined");
  EXPECT_EQ(parse_error("{{ $x }}"), "template: user-data:1: undefined variable \"$x\"");
  EXPECT_EQ(parse_error("{{ $x = 1 }}"), "template: user-data:1: undefined variable \"$x\"");
}

TEST(GotemplateParseErrors, LexicalErrorsUseGosWording) {
  EXPECT_EQ(parse_error("{{ \"abc }}"), "template: user-data:1: unterminated quoted string");
  EXPECT_EQ(parse_error("{{ `abc }}"), "template: user-data:1: unterminated raw quoted string");
  EXPECT_EQ(parse_error("{{ 'a }}"), "template: user-data:1: unterminated character constant");
  EXPECT_EQ(parse_error("{{ .A"), "template: user-data:1: unclosed action");
  EXPECT_EQ(parse_error("{{/* c }}"), "template: user-data:1: unclosed comment");
  EXPECT_EQ(parse_error("{{/* c */ x}}"),
            "template: user-data:1: comment ends before closing delimiter");
  EXPECT_EQ(parse_error("{{ 3x }}"), "template: user-data:1: bad number syntax: \"3x\"");
  EXPECT_EQ(parse_error("{{ (1 }}"), "template: user-data:1: unclosed left paren");
  EXPECT_EQ(parse_error("{{ ) }}"), "template: user-data:1: unexpected right paren");
  EXPECT_EQ(parse_error("{{ $ :x }}"), "template: user-data:1: expected :=");
  EXPECT_EQ(parse_error("{{ \x01 }}"),
            "template: user-data:1: unrecognized character in action: U+0001");
  EXPECT_EQ(parse_error("{{ \"\\q\" }}"), "template: user-data:1: invalid syntax");
}

TEST(GotemplateParseErrors, StructuralErrorsUseGosWording) {
  EXPECT_EQ(parse_error("{{ break }}"), "template: user-data:1: {{break}} outside {{range}}");
  EXPECT_EQ(parse_error("{{ continue }}"), "template: user-data:1: {{continue}} outside {{range}}");
  EXPECT_EQ(parse_error("{{ if }}x{{ end }}"), "template: user-data:1: missing value for if");
  EXPECT_EQ(parse_error("{{ 1 | 2 }}"),
            "template: user-data:1: non executable command in pipeline stage 2");
  EXPECT_EQ(parse_error("{{ range $a, $b, $c := . }}{{ end }}"),
            "template: user-data:1: too many declarations in range");
  EXPECT_EQ(parse_error("{{ template foo }}"),
            "template: user-data:1: unexpected \"foo\" in template clause");
  EXPECT_EQ(parse_error("{{ define \"a\" }}x{{ end }}{{ define \"a\" }}y{{ end }}"),
            "template: user-data:1: template: multiple definition of template \"a\"");
  EXPECT_EQ(parse_error("{{ if .A }}{{ else }}{{ else }}{{ end }}"),
            "template: user-data:1: expected end; found {{else}}");
  EXPECT_EQ(parse_error("{{ \"a\".B }}"),
            "template: user-data:1: unexpected . after term \"\\\"a\\\"\"");
  EXPECT_EQ(parse_error("{{ .A \"verylongstringliteral\" ( }}"),
            "template: user-data:1: unclosed left paren");
  EXPECT_EQ(parse_error("{{ with $x := 1 }}{{ end }}{{ $x }}"),
            "template: user-data:1: undefined variable \"$x\"");
}

TEST(GotemplateParseErrors, DeepNestingIsRefusedInsteadOfOverflowingTheStack) {
  std::string deep(5000, '(');
  EXPECT_EQ(parse_error("{{ " + deep + "1" + std::string(5000, ')') + " }}"),
            "template: user-data:1: max expression depth exceeded");
  std::string ifs;
  for (int i = 0; i < 5000; ++i) ifs += "{{ if 1 }}";
  EXPECT_EQ(parse_error(ifs), "template: user-data:1: max expression depth exceeded");
}

TEST(GotemplateParseErrors, ValidTemplatesWithCommentsAndDefinitionsParse) {
  EXPECT_EQ(parse_error("{{/* a comment */}}{{- /* trimmed */ -}}\n{{ define \"x\" }}y{{ end }}"),
            "parsed");
}

}  // namespace
}  // namespace kp::gotemplate
