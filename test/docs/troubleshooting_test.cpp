// docs/troubleshooting.md explains every condition reason (actors/condition_reasons.hpp) and
// every Event reason (actors/event_reasons.hpp) the controller can write.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "actors/condition_reasons.hpp"
#include "actors/event_reasons.hpp"
#include "test/docs/doc_text.hpp"

namespace kp::actors {
namespace {

// A reason counts as explained when it appears in code spans, as `Reason`.
bool explained(const std::string& page, std::string_view reason) {
  return page.find("`" + std::string(reason) + "`") != std::string::npos;
}

TEST(TroubleshootingPage, ExplainsEveryConditionReasonTheControllerWrites) {
  const auto page = kp::test::read_source_file("docs/troubleshooting.md");
  ASSERT_FALSE(page.empty()) << "docs/troubleshooting.md is missing";
  for (auto reason : condition_reasons) {
    EXPECT_TRUE(explained(page, reason)) << "condition reason " << reason << " is not on the page";
  }
}

TEST(TroubleshootingPage, ExplainsEveryEventReasonTheControllerEmits) {
  const auto page = kp::test::read_source_file("docs/troubleshooting.md");
  ASSERT_FALSE(page.empty()) << "docs/troubleshooting.md is missing";
  for (auto reason : event_reasons) {
    EXPECT_TRUE(explained(page, reason)) << "Event reason " << reason << " is not on the page";
  }
}

TEST(EventReasons, AreListedOnceAndNeverEmpty) {
  std::set<std::string_view> seen;
  for (auto r : event_reasons) {
    EXPECT_FALSE(r.empty());
    EXPECT_TRUE(seen.insert(r).second) << r << " is listed twice";
  }
  constexpr event_reason evicted = "Evicted";
  EXPECT_EQ(evicted.view(), "Evicted");
}

}  // namespace
}  // namespace kp::actors
