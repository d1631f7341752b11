// Regular expressions and YAML quoting run in linear time without recursion: long inputs
// render even on a small thread stack, and matching works on UTF-8 characters as Go's does.
#include <gtest/gtest.h>
#include <pthread.h>

#include <functional>
#include <string>

#include "core/gotemplate/template_set.hpp"

namespace kp::gotemplate {
namespace {

// Runs body on a thread with a 256 KiB stack, where per-character recursion would overflow.
void on_small_stack(const std::function<void()>& body) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, 256 * 1024), 0);
  pthread_t thread;
  auto run = [](void* arg) -> void* {
    (*static_cast<const std::function<void()>*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, run, const_cast<std::function<void()>*>(&body)), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

std::string render(const std::string& text, const value& data = value()) {
  auto out = render_template("t", text, data);
  return out ? *out : "ERROR: " + out.error().message;
}

TEST(GoRegexp, ATwelveThousandDigitNumberStringRendersAsYamlOnASmallStack) {
  std::string out;
  on_small_stack([&] { out = render(R"x({{ printf "%012000d" 0 | toYaml }})x"); });
  // yaml.v3 quotes a string that reads back as a number.
  EXPECT_EQ(out, "\"" + std::string(12000, '0') + "\"");
}

TEST(GoRegexp, FindAndReplaceOverAHundredThousandCharactersRunOnASmallStack) {
  std::string long_text(100000, 'a');
  value data = value::map({{"s", long_text}});
  std::string found;
  std::string replaced;
  on_small_stack([&] {
    found = render(R"x({{ regexFind "(a|b)+" .s | len }})x", data);
    replaced = render(
        R"x({{ regexReplaceAll "(a)" .s "b" | len }} {{ regexReplaceAll "a" .s "" }})x", data);
  });
  EXPECT_EQ(found, "100000");
  EXPECT_EQ(replaced, "100000 ");
}

TEST(GoRegexp, MatchesUtf8CharactersNotBytes) {
  EXPECT_EQ(render(R"x({{ regexFind "^.." "héllo" }})x"), "hé");
  EXPECT_EQ(render(R"x({{ regexReplaceAll "." "añb" "x" }})x"), "xxx");
  EXPECT_EQ(render(R"x({{ regexReplaceAll "" "añ" "-" }})x"), "-a-ñ-");
  EXPECT_EQ(render(R"x({{ regexFindString "(\\p{Greek}+)" "abc αβγ" 1 }})x"), "αβγ");
}

TEST(GoRegexp, RefusesWhatGoRegexpRefusesWithGosWording) {
  EXPECT_EQ(render(R"x({{ regexFind "(a" "x" }})x"),
            "ERROR: template: t:1:3: executing \"t\" at <regexFind>: error calling regexFind: "
            "error parsing regexp: missing closing ): `(a`");
  EXPECT_NE(render(R"x({{ regexFind "a(?=b)" "ab" }})x").find("invalid or unsupported Perl syntax"),
            std::string::npos);
  EXPECT_NE(render(R"x({{ regexFind "(a)\\1" "aa" }})x").find("invalid escape sequence"),
            std::string::npos);
}

TEST(GoRegexp, ExpandsNamedAndNumberedGroupsAsGoDoes) {
  EXPECT_EQ(render(R"x({{ regexReplaceAll "(?P<k>\\w+)=(\\w+)" "a=b" "${2}:$k $1x $$" }})x"),
            "b:a  $");
}

}  // namespace
}  // namespace kp::gotemplate
