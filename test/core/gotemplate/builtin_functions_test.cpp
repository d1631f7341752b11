#include <gtest/gtest.h>

#include "test/core/gotemplate/render.hpp"

namespace kp::gotemplate {
namespace {

using testing::render;

value sample() {
  return value::map({{"L", value::list({"a", "b"})},
                     {"Five", value::list({"a", "b", "c", "d", "e"})},
                     {"M", value::map({{"b", 2}, {"a", 1}})},
                     {"Nested", value::map({{"x", value::list({10, 20})}})}});
}

TEST(GotemplateBuiltins, PrintfIntegerVerbsFlagsAndWidths) {
  EXPECT_EQ(render("{{ printf \"%d|%5d|%-5d|%05d|%x|%X|%o|%b|%c|%q|%U\" 42 42 42 42 255 255 8 5 65 "
                   "65 65 }}"),
            "42|   42|42   |00042|ff|FF|10|101|A|'A'|U+0041");
  EXPECT_EQ(render("{{ printf \"%+d|% d|%#x|%d\" 5 5 255 -7 }}"), "+5| 5|0xff|-7");
}

TEST(GotemplateBuiltins, PrintfStringFloatAndBoolVerbs) {
  EXPECT_EQ(render("{{ printf \"%s|%q|%v|%6s|%-6s|%.2s|%x\" \"hi\" \"hi\" \"hi\" \"hi\" \"hi\" "
                   "\"hello\" \"hi\" }}"),
            "hi|\"hi\"|hi|    hi|hi    |he|6869");
  EXPECT_EQ(
      render(
          "{{ printf \"%f|%.2f|%e|%g|%v|%8.3f\" 3.14159 3.14159 1234.5678 0.000012 2.5 3.14159 }}"),
      "3.141590|3.14|1.234568e+03|1.2e-05|2.5|   3.142");
  EXPECT_EQ(render("{{ printf \"%t|%v|100%%\" true false }}"), "true|false|100%");
  EXPECT_EQ(render("{{ printf \"%v %s %v\" .L .L .M }}", sample()), "[a b] [a b] map[a:1 b:2]");
  EXPECT_EQ(render("{{ printf \"%q\" \"tab\\there\" }}"), "\"tab\\there\"");
}

TEST(GotemplateBuiltins, PrintfReportsBadVerbsMissingAndExtraArgumentsInBand) {
  EXPECT_EQ(render("{{ printf \"%d\" \"x\" }}"), "%!d(string=x)");
  EXPECT_EQ(render("{{ printf \"%d %d\" 1 }}"), "1 %!d(MISSING)");
  EXPECT_EQ(render("{{ printf \"%d\" 1 2 }}"), "1%!(EXTRA int=2)");
  EXPECT_EQ(render("{{ printf \"%s\" 1.5 }}"), "%!s(float64=1.5)");
  EXPECT_EQ(render("{{ printf \"%v|%s\" nil nil }}"), "<nil>|%!s(<nil>)");
  EXPECT_EQ(render("{{ printf \"%\" }}"), "%!(NOVERB)");
}

TEST(GotemplateBuiltins, PrintAndPrintlnSpaceOperandsLikeGo) {
  EXPECT_EQ(render("{{ print 1 2 \"a\" 3 \"b\" \"c\" }}"), "1 2a3bc");
  EXPECT_EQ(render("{{ println 1 \"a\" }}"), "1 a\n");
  EXPECT_EQ(render("{{ print }}"), "");
}

TEST(GotemplateBuiltins, LenIndexAndSlice) {
  EXPECT_EQ(render("{{ len .L }} {{ len \"h\xc3\xa9llo\" }} {{ len .M }}", sample()), "2 6 2");
  EXPECT_EQ(render("{{ index .M \"a\" }} {{ index .M \"zz\" }} {{ index .Nested \"x\" 1 }} {{ "
                   "index \"abc\" 1 }}",
                   sample()),
            "1 <no value> 20 98");
  EXPECT_EQ(
      render(
          "{{ slice .Five 1 3 }} {{ slice \"hello\" 1 }} {{ slice \"hello\" 1 2 }} {{ slice .L }}",
          sample()),
      "[b c] ello e [a b]");
  EXPECT_EQ(render("{{ len 3 }}"),
            "ERROR: template: t:1:3: executing \"t\" at <len>: error calling len: len of type int");
  EXPECT_EQ(render("{{ index .L \"x\" }}", sample()),
            "ERROR: template: t:1:3: executing \"t\" at <index>: error calling index: cannot index "
            "slice/array with type string");
  EXPECT_EQ(render("{{ slice .L 3 }}", sample()),
            "ERROR: template: t:1:3: executing \"t\" at <slice>: error calling slice: index out of "
            "range: 3");
  EXPECT_EQ(render("{{ index .Missing 1 }}", sample()),
            "ERROR: template: t:1:3: executing \"t\" at <index>: error calling index: index of "
            "untyped nil");
}

TEST(GotemplateBuiltins, ComparisonsFollowGoTypeRules) {
  EXPECT_EQ(
      render("{{ eq \"a\" \"b\" \"a\" }} {{ eq 1 2 }} {{ ne 1 2 }} {{ eq .Missing .Missing }}",
             sample()),
      "true false true true");
  EXPECT_EQ(render("{{ lt 1 2 }} {{ le 2 2 }} {{ gt 1.5 2.5 }} {{ ge \"b\" \"a\" }}"),
            "true true false true");
  EXPECT_EQ(render("{{ lt true false }}"),
            "ERROR: template: t:1:3: executing \"t\" at <lt>: error calling lt: invalid type for "
            "comparison");
  EXPECT_EQ(render("{{ lt 1 1.5 }}"),
            "ERROR: template: t:1:3: executing \"t\" at <lt>: error calling lt: incompatible types "
            "for comparison");
  EXPECT_EQ(
      render("{{ eq .L .L }}", sample()),
      "ERROR: template: t:1:3: executing \"t\" at <eq>: error calling eq: non-comparable type "
      "[a b]: []interface {}");
}

TEST(GotemplateBuiltins, NotAndTheEscapers) {
  EXPECT_EQ(render("{{ not 0 }} {{ not .L }}", sample()), "true false");
  EXPECT_EQ(render("{{ html \"<a href='x'>&\\\"\" }}"), "&lt;a href=&#39;x&#39;&gt;&amp;&#34;");
  EXPECT_EQ(render("{{ js \"it's <b>\" }}"), "it\\'s \\u003Cb\\u003E");
  EXPECT_EQ(render("{{ urlquery \"a b&c=d/\xc3\xa9\" }}"), "a+b%26c%3Dd%2F%C3%A9");
}

}  // namespace
}  // namespace kp::gotemplate
