// The budget on what functions return (execution_limits::max_function_bytes): legal wide results
// render as Go's do, and a template that would build more than the budget fails at the call that
// would cross it, before building it, naming the function.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "core/gotemplate/template_set.hpp"

namespace kp::gotemplate {
namespace {

constexpr std::size_t small_budget = 1u << 20;

// Renders text with the default limits but a function budget of `budget` bytes; the output, or
// "ERROR: " and the message.
std::string render_within(const std::string& text, std::size_t budget,
                          const value& data = value()) {
  auto t = template_set::parse("t", text);
  if (!t) return "ERROR: " + t.error().message;
  execution_limits limits;
  limits.max_function_bytes = budget;
  t->set_limits(limits);
  auto r = t->execute(data);
  if (!r) return "ERROR: " + r.error().message;
  return *r;
}

std::string over_budget_message(const std::string& function, std::size_t budget) {
  return "error calling " + function + ": function results would exceed the template's budget of " +
         std::to_string(budget) + " bytes";
}

// A map of `n` entries, as the cloud-init data a template ranges or prints.
value map_of(int n) {
  value m = value::map();
  for (int i = 0; i < n; ++i) m.set("key" + std::to_string(i), value("v"));
  return m;
}

TEST(GotemplateFunctionBudget, AWidePrintfWithinTheBudgetRendersAsGoDoes) {
  // fmt takes widths up to about ten million; a 9,999,999-wide number is legal Go.
  EXPECT_EQ(render_within("{{ printf \"%9999999d\" 1 | len }}", 64u << 20), "9999999");
  EXPECT_EQ(render_within("{{ printf \"%08.3f|%-6s|%x\" 3.14159 \"ab\" 255 }}", small_budget),
            "0003.142|ab    |ff");
  EXPECT_EQ(render_within("{{ printf \"%.5d\" 7 }}", small_budget), "00007");
}

TEST(GotemplateFunctionBudget, APrintfWiderThanTheBudgetFailsNamingPrintf) {
  for (const char* text : {"{{ printf \"%2000000d\" 1 }}", "{{ printf \"%.2000000d\" 1 }}",
                           "{{ printf \"%.2000000f\" 1.5 }}", "{{ printf \"%2000000s\" \"a\" }}",
                           "{{ printf \"%*d\" 1000000 1 | printf \"%s%s\" . }}"}) {
    std::string out = render_within(text, small_budget);
    EXPECT_NE(out.find(over_budget_message("printf", small_budget)), std::string::npos)
        << text << " -> " << out.substr(0, 200);
  }
}

TEST(GotemplateFunctionBudget, AWidthRepeatedOverEveryValueOfAMapFailsAtThePrintf) {
  // The fuzzer's input: each of the map's values padded to six million characters, then quoted.
  std::string out = render_within("{{ printf \"m%6086200d\" . | quote }}", 16u << 20, map_of(40));
  EXPECT_NE(out.find(over_budget_message("printf", 16u << 20)), std::string::npos) << out;
  EXPECT_NE(out.find("t:1:3: executing \"t\" at <printf>"), std::string::npos) << out;
}

TEST(GotemplateFunctionBudget, ResultsThatNeverReachTheOutputStillCountAcrossALoop) {
  // Each step's ten megabytes are dropped by len, so the output limit never sees them.
  std::string out =
      render_within("{{ range 1000000 }}{{ printf \"%9999999d\" 1 | len }}{{ end }}", 64u << 20);
  EXPECT_NE(out.find(over_budget_message("printf", 64u << 20)), std::string::npos) << out;
  EXPECT_EQ(
      render_within("{{ range 200 }}{{ printf \"%999d\" 1 | len }}{{ end }}", 100'000).substr(0, 6),
      "ERROR:");
  EXPECT_EQ(render_within("{{ range 3 }}{{ printf \"%999d\" 1 | len }}{{ end }}", 100'000),
            "999999999");
}

TEST(GotemplateFunctionBudget, IndentBeyondTheOldFixedCapWorksAsGoWhileItFits) {
  EXPECT_EQ(render_within("{{ indent 2000000 \"x\" | len }}", 64u << 20), "2000001");
  EXPECT_EQ(render_within("{{ \"a\\nb\" | indent 2 }}", small_budget), "  a\n  b");
  EXPECT_EQ(render_within("{{ \"a\\nb\" | nindent 2 }}", small_budget), "\n  a\n  b");
  EXPECT_EQ(render_within("{{ indent -1 \"x\" }}", small_budget).substr(0, 6), "ERROR:");
}

TEST(GotemplateFunctionBudget, IndentTimesLinesOverTheBudgetFailsNamingTheFunction) {
  // 600,000 lines, each indented by 2 MB-wide padding: a terabyte, refused before building.
  std::string lines = "{{ $s := printf \"%600000s\" \"\" | replace \" \" \"\\n\" }}";
  for (const char* fn : {"indent", "nindent"}) {
    std::string out = render_within(lines + "{{ " + fn + " 2000000 $s | len }}", 64u << 20);
    EXPECT_NE(out.find(over_budget_message(fn, 64u << 20)), std::string::npos) << out;
  }
}

TEST(GotemplateFunctionBudget, EveryFunctionThatCanOutgrowItsArgumentsStopsAtTheBudget) {
  // $s is 100 KB, a tenth of the budget; each call below would build more than a megabyte.
  const std::string s = "{{ $s := printf \"%100000s\" \"\" }}";
  const std::string eleven = " $s $s $s $s $s $s $s $s $s $s $s";
  const std::string invalid_bytes =
      "{{ $b := printf \"%100000s\" \"\" | replace \" \" (b64dec \"gICAgA==\") }}";
  struct call {
    const char* function;
    std::string text;
  };
  const call calls[] = {
      {"join", s + "{{ join (split \"a,b,c,d,e,f,g,h,i,j,k,l\" \",\") $s }}"},
      {"replace", s + "{{ replace \" \" $s $s }}"},
      {"regexReplaceAll", s + "{{ regexReplaceAll \" \" $s $s }}"},
      {"regexReplaceAll", s + "{{ regexReplaceAll \"(.*)\" $s \"$1$1$1$1$1$1$1$1$1$1$1\" }}"},
      {"split", s + "{{ split $s \"\" }}"},
      {"quote", s + "{{ quote" + eleven + " }}"},
      {"print", s + "{{ print" + eleven + " }}"},
      {"println", s + "{{ println" + eleven + " }}"},
      {"html", s + "{{ html" + eleven + " }}"},
      {"js", s + "{{ js" + eleven + " }}"},
      {"urlquery", s + "{{ urlquery" + eleven + " }}"},
      {"upper", invalid_bytes + "{{ $b | upper }}{{ $b | upper }}"},  // each byte becomes three
      {"lower", invalid_bytes + "{{ $b | lower }}{{ $b | lower }}"},
      {"b64enc", "{{ printf \"%800000s\" \"\" | b64enc }}"},
      {"toJson", "{{ $s := printf \"%600000s\" \"\" }}{{ toJson $s }}"},
      {"toYaml", "{{ $s := printf \"%600000s\" \"\" }}{{ toYaml $s }}"},
      {"printf", s + "{{ printf \"%s%s%s%s%s%s%s%s%s%s%s\"" + eleven + " }}"},
  };
  for (const auto& c : calls) {
    std::string out = render_within(c.text, small_budget);
    EXPECT_NE(out.find(over_budget_message(c.function, small_budget)), std::string::npos)
        << c.text << " -> " << out.substr(0, 300);
  }
}

TEST(GotemplateFunctionBudget, TheSameFunctionsWithinTheBudgetGiveGosResults) {
  const std::string s = "{{ $s := printf \"%3s\" \"\" }}";
  EXPECT_EQ(render_within(s + "{{ join (split \"a,b,c\" \",\") $s }}", small_budget), "a   b   c");
  EXPECT_EQ(render_within(s + "{{ replace \" \" \"-\" $s }}", small_budget), "---");
  EXPECT_EQ(render_within("{{ regexReplaceAll \"(b+)\" \"abbc\" \"$1$1\" }}", small_budget),
            "abbbbc");
  EXPECT_EQ(
      render_within("{{ quote \"a\" 1 }} {{ print \"a\" 1 2 }} {{ html \"<\" }}", small_budget),
      "\"a\" \"1\" a1 2 &lt;");
  EXPECT_EQ(render_within("{{ \"abc\" | upper | b64enc }} {{ toJson \"x\" }}", small_budget),
            "QUJD \"x\"");
}

TEST(GotemplateFunctionBudget, ReadingALargeVariableManyTimesCopiesNoBytes) {
  // A 10 MB variable read a hundred thousand times: values share their strings, so this is
  // steps, not a terabyte of copies, and only the printf counts against the budget.
  EXPECT_EQ(render_within("{{ $s := printf \"%9999999d\" 1 }}{{ range 100000 }}{{ if $s }}{{ end }}"
                          "{{ $t := $s }}{{ end }}{{ len $s }}",
                          16u << 20),
            "9999999");
}

TEST(GotemplateFunctionBudget, ComparingOrSearchingALargeStringInALoopStopsAtTheReadBudget) {
  // eq and contains build nothing, but each call reads ten megabytes; a million of them would
  // take hours.
  for (const char* fn : {"eq", "contains", "regexFind"}) {
    std::string text = std::string("{{ $s := printf \"%9999999d\" 1 }}{{ range 1000000 }}{{ if ") +
                       fn + " \"x\" $s }}{{ end }}{{ end }}";
    auto t = template_set::parse("t", text);
    ASSERT_TRUE(t.ok()) << t.error().message;
    execution_limits limits;
    limits.max_function_input_bytes = 100u << 20;
    t->set_limits(limits);
    auto r = t->execute(value());
    ASSERT_FALSE(r.ok()) << fn;
    EXPECT_NE(r.error().message.find(std::string("error calling ") + fn +
                                     ": function arguments would exceed the template's budget "
                                     "of 104857600 bytes read"),
              std::string::npos)
        << r.error().message;
  }
  EXPECT_EQ(render_within("{{ $s := \"abc\" }}{{ range 1000 }}{{ if eq $s \"abc\" }}x{{ end }}"
                          "{{ end }}",
                          small_budget)
                .size(),
            1000u);
}

TEST(GotemplateFunctionBudget, PrecisionsBeyondADoublesDigitsPrintCsZerosWithoutComputingThem) {
  // Only zeros follow a double's 767 significant digits (1074 decimals); they are written, not
  // computed, so "%.9999999g" of 1.5 is cheap. The results match C's full computation.
  struct float_case {
    const char* format;
    double d;
  };
  for (auto [format, d] :
       {float_case{"%.2000f", 1e-300}, float_case{"%.2000f", 4.9e-324}, float_case{"%.1500e", 0.1},
        float_case{"%.1500E", 1e300}, float_case{"%.1500g", 4.9e-324}, float_case{"%.1500g", 1.5},
        float_case{"%#.1500g", 0.1}, float_case{"%.1500G", 1e-10}}) {
    std::vector<char> c(4096);
    std::snprintf(c.data(), c.size(), format, d);
    value args[] = {value(format), value(d)};
    std::string text = "{{ printf (index . 0) (index . 1) }}";
    EXPECT_EQ(render_within(text, small_budget, value(value::list_data(args, args + 2))),
              std::string(c.data()))
        << format;
  }
}

}  // namespace
}  // namespace kp::gotemplate
