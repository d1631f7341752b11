#include "core/model/quantity.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "core/model/resource_list.hpp"

namespace {

using kp::model::checked_add;
using kp::model::parse_quantity;
using kp::model::quantity;
using kp::model::resource_list;
using kp::model::saturating_add;
using kp::model::saturating_sub;
using kp::model::to_string;

std::int64_t milli(const char* s) {
  auto q = parse_quantity(s);
  EXPECT_TRUE(q.ok()) << s;
  return q.ok() ? q->milli : -1;
}

std::string canonical(const char* s) {
  auto q = parse_quantity(s);
  EXPECT_TRUE(q.ok()) << s;
  return q.ok() ? to_string(*q) : "<error>";
}

TEST(Quantity, MilliCpuIsAnExactInteger) {
  EXPECT_EQ(milli("100m"), 100);
  EXPECT_EQ(milli("1"), 1000);
  EXPECT_EQ(milli("1.5"), 1500);
  EXPECT_EQ(milli("0.25"), 250);
}

TEST(Quantity, BinaryAndDecimalSuffixesScaleAsInKubernetes) {
  EXPECT_EQ(milli("1Ki"), 1024 * 1000);
  EXPECT_EQ(milli("500Mi"), 500LL * 1024 * 1024 * 1000);
  EXPECT_EQ(milli("1.5Gi"), 1536LL * 1024 * 1024 * 1000);
  EXPECT_EQ(milli("1k"), 1000 * 1000);
  EXPECT_EQ(milli("2M"), 2000000LL * 1000);
  EXPECT_EQ(milli("30G"), 30000000000LL * 1000);
}

TEST(Quantity, ExponentsAreAccepted) {
  EXPECT_EQ(milli("2e3"), 2000 * 1000);
  EXPECT_EQ(milli("1E-3"), 1);
  EXPECT_EQ(milli("12e6"), 12000000LL * 1000);
}

TEST(Quantity, PrecisionBelowAMilliUnitRoundsUp) {
  EXPECT_EQ(milli("0.1m"), 1);
  EXPECT_EQ(milli("1n"), 1);
  EXPECT_EQ(milli("1001u"), 2);
}

TEST(Quantity, SignsAreHonoured) {
  EXPECT_EQ(milli("-100m"), -100);
  EXPECT_EQ(milli("+2"), 2000);
}

TEST(Quantity, CanonicalPrintingMatchesKubernetes) {
  EXPECT_EQ(canonical("100m"), "100m");
  EXPECT_EQ(canonical("1000m"), "1");
  EXPECT_EQ(canonical("1.5"), "1500m");
  EXPECT_EQ(canonical("2000"), "2k");
  EXPECT_EQ(canonical("1.5Gi"), "1536Mi");
  EXPECT_EQ(canonical("1024Mi"), "1Gi");
  EXPECT_EQ(canonical("2e3"), "2e3");
  EXPECT_EQ(canonical("500Mi"), "500Mi");
  EXPECT_EQ(canonical("0"), "0");
  EXPECT_EQ(canonical("512"), "512");
  EXPECT_EQ(canonical("0.5Ki"), "512");
}

TEST(Quantity, ValueRoundsUpToWholeUnits) {
  EXPECT_EQ(quantity::from_milli(1500).value(), 2);
  EXPECT_EQ(quantity::from_milli(2000).value(), 2);
}

TEST(Quantity, MalformedInputIsAnErrorNotACrash) {
  for (const char* bad : {"", "abc", "1.2.3", "1Qi", "m", "--1", "1e", "1e+", "Gi", "1 Gi", "1Gii",
                          "99999999999999999999999", "9223372036854775807Ei", "1e99999"}) {
    auto q = parse_quantity(bad);
    EXPECT_FALSE(q.ok()) << bad;
    if (!q.ok()) {
      EXPECT_EQ(q.error().code, "invalid_quantity");
    }
  }
}

TEST(ResourceList, ParsingNamesTheResourceThatIsMalformed) {
  auto ok = kp::model::parse_resource_list({{"cpu", "2"}, {"memory", "4Gi"}});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->milli("cpu"), 2000);
  auto bad = kp::model::parse_resource_list({{"cpu", "2"}, {"memory", "lots"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("memory"), std::string::npos);
}

TEST(ResourceList, AbsentResourcesCountAsZeroWhenFitting) {
  kp::model::resource_list want{{"cpu", quantity::from_milli(500)},
                                {"nvidia.com/gpu", quantity::from_units(1)}};
  kp::model::resource_list have{{"cpu", quantity::from_units(4)}};
  EXPECT_FALSE(want.fits_in(have));
  have.set("nvidia.com/gpu", quantity::from_units(1));
  EXPECT_TRUE(want.fits_in(have));
}

}  // namespace

namespace {

TEST(Quantity, SumsSaturateAtTheBoundsInsteadOfWrapping) {
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  constexpr auto min = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(saturating_add(max - 1, 5), max);
  EXPECT_EQ(saturating_add(min + 1, -5), min);
  EXPECT_EQ(saturating_add(40, 2), 42);
  EXPECT_EQ(saturating_sub(min + 1, 5), min);
  EXPECT_EQ(saturating_sub(max - 1, -5), max);
  std::int64_t out = 0;
  EXPECT_FALSE(checked_add(max, 1, out));
  EXPECT_EQ(out, max);
  EXPECT_TRUE(checked_add(1, 2, out));
  EXPECT_EQ(out, 3);
  EXPECT_EQ(quantity::from_units(max / 10).milli, max);
  EXPECT_EQ(quantity::from_units(min / 10).milli, min);
}

TEST(ResourceList, AddingBeyondTheRangeSaturatesAndNamesTheResource) {
  auto eight_pi = *parse_quantity("8Pi");
  resource_list a{{"memory", eight_pi}, {"cpu", *parse_quantity("1")}};
  resource_list b = a;
  std::string overflowed;
  EXPECT_FALSE(a.add_checked(b, &overflowed));
  EXPECT_EQ(overflowed, "memory");
  EXPECT_EQ(a.milli("memory"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(a.milli("cpu"), 2000);
  resource_list c = b;
  c -= resource_list{{"memory", quantity{std::numeric_limits<std::int64_t>::min() + 1}}};
  EXPECT_EQ(c.milli("memory"), std::numeric_limits<std::int64_t>::max());
  c += b;
  EXPECT_EQ(c.milli("memory"), std::numeric_limits<std::int64_t>::max());
}

TEST(Quantity, RandomInputNeverCrashesAndValidOnesRoundTrip) {
  std::uint32_t state = 12345;
  auto next = [&] { return state = state * 1664525u + 1013904223u; };
  const std::string alphabet = "0123456789.+-eEkKMGTPinum ";
  for (int i = 0; i < 20000; ++i) {
    std::string s;
    std::size_t n = next() % 12;
    for (std::size_t k = 0; k < n; ++k) s.push_back(alphabet[next() % alphabet.size()]);
    auto q = kp::model::parse_quantity(s);
    if (!q.ok()) continue;
    // Whatever parses prints canonically and parses back to the same amount.
    auto again = kp::model::parse_quantity(kp::model::to_string(*q));
    ASSERT_TRUE(again.ok()) << s << " -> " << kp::model::to_string(*q);
    EXPECT_EQ(again->milli, q->milli) << s;
  }
}

}  // namespace
