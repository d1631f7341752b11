// The one trim and the one base64 every layer uses.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/text/base64.hpp"
#include "core/text/trim.hpp"

namespace kp::text {
namespace {

TEST(Trim, TakesAsciiWhiteSpaceOffBothEndsAndNothingInside) {
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim(" \t\r\n\f\v"), "");
  EXPECT_EQ(trim("\t a b \r\n"), "a b");
  EXPECT_EQ(trim("x"), "x");
  EXPECT_EQ(trim("\xc2\xa0x"), "\xc2\xa0x") << "only ASCII white space";
}

TEST(Base64, EncodesWithTheStandardAlphabetAndPadding) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64_encode("\xff\xfe"), "//4=");
  EXPECT_EQ(base64_encode("hello"), "aGVsbG8=");
}

TEST(Base64, DecodesWhatItEncodesWhateverThePadding) {
  for (const std::string& s : std::vector<std::string>{"", "a", "ab", "abc", "abcd", "fooba",
                                                       std::string("\0\xff\x10", 3)}) {
    auto d = base64_decode(base64_encode(s));
    ASSERT_TRUE(d.has_value()) << s;
    EXPECT_EQ(*d, s);
  }
  EXPECT_EQ(base64_decode("aGVs\nbG8="), std::optional<std::string>("hello"))
      << "line breaks, as in PEM-wrapped data, are ignored";
}

TEST(Base64, RefusesGarbageAndMisplacedPadding) {
  for (const char* bad : {"abc", "ab=c", "a$bc", "Zm9", "Zm9v!mFy", "Z===", "Zm=v", "=Zm8"})
    EXPECT_FALSE(base64_decode(bad).has_value()) << bad;
}

}  // namespace
}  // namespace kp::text
