// The differences from Go that core/gotemplate/README.md keeps on purpose, pinned so that a
// change to any of them is seen (and the README updated).
#include <gtest/gtest.h>

#include "test/core/gotemplate/render.hpp"

namespace kp::gotemplate {
namespace {

using testing::render;

value with_pointers() {
  value r = value::record();
  r.field("A", 110, {.yaml_name = "a", .json_name = "a", .omit_empty = true, .pointer = true});
  r.field("B", 110, {.yaml_name = "b", .json_name = "b", .omit_empty = true, .pointer = true});
  r.field("C", 7);
  return r;
}

TEST(GotemplateKnownDifferences, ComplexConstantsAreAParseError) {
  EXPECT_TRUE(render("{{ 3i }}").starts_with("ERROR: template: t:1: ")) << render("{{ 3i }}");
  EXPECT_TRUE(render("{{ 1+2i }}").starts_with("ERROR: template: t:1: "));
}

TEST(GotemplateKnownDifferences, APointerPrintsItsTargetWhereGoPrintsAnAddress) {
  EXPECT_EQ(render("{{ printf \"%v %d\" .A .A }}", with_pointers()), "110 110");
  EXPECT_EQ(render("{{ . }}", with_pointers()), "{110 110 7}");
}

TEST(GotemplateKnownDifferences, RecordsAreSpelledStructAndIntegersInt) {
  EXPECT_EQ(render("{{ printf \"%T\" . }}", with_pointers()), "struct");
  EXPECT_EQ(render("{{ printf \"%#v\" . }}", with_pointers()), "struct{A:110, B:110, C:7}");
  EXPECT_EQ(render("{{ printf \"%T %T\" .A .C }}", with_pointers()), "*int int");
}

TEST(GotemplateKnownDifferences, TwoPointersCompareByTarget) {
  EXPECT_EQ(render("{{ eq .A .B }}", with_pointers()), "true");
}

}  // namespace
}  // namespace kp::gotemplate
