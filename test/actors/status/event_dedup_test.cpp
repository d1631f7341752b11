// The recorder's pure parts: the LRU bound, repeat detection within the window, the per-object
// token bucket and Event names.
#include "actors/event_recorder/event_dedup.hpp"

#include <gtest/gtest.h>

namespace kp::actors::event_recorder {
namespace {

using namespace std::chrono_literals;

protocol::event_record pod_event(const std::string& uid, const std::string& message) {
  protocol::event_record e;
  e.kind = "Pod";
  e.api_version = "v1";
  e.namespace_ = "apps";
  e.name = "web-1";
  e.uid = uid;
  e.reason = "Nominated";
  e.message = message;
  return e;
}

TEST(LruCache, forgetsTheLeastRecentlyUsedKeyBeyondItsCapacity) {
  lru_cache<int> c(2);
  c.put("a", 1);
  c.put("b", 2);
  ASSERT_NE(c.touch("a"), nullptr);  // a is now newer than b
  c.put("c", 3);
  EXPECT_EQ(c.size(), 2u);
  EXPECT_EQ(c.peek("b"), nullptr);
  EXPECT_EQ(*c.peek("a"), 1);
  EXPECT_EQ(*c.peek("c"), 3);
}

TEST(EventDedup, theSameObjectReasonAndMessageShareAKeyAndADifferentMessageDoesNot) {
  EXPECT_EQ(dedup_key_of(pod_event("u1", "m")), dedup_key_of(pod_event("u1", "m")));
  EXPECT_NE(dedup_key_of(pod_event("u1", "m")), dedup_key_of(pod_event("u1", "n")));
  EXPECT_NE(dedup_key_of(pod_event("u1", "m")), dedup_key_of(pod_event("u2", "m")));
}

TEST(EventDedup, clusterScopedObjectsGetTheirEventsInTheDefaultNamespace) {
  auto e = pod_event("u1", "m");
  EXPECT_EQ(event_namespace_of(e), "apps");
  e.kind = "NodeClaim";
  e.namespace_ = "";
  EXPECT_EQ(event_namespace_of(e), "default");
}

TEST(EventDedup, aRepeatWithinTheWindowCountsIntoTheRememberedEvent) {
  recent_events r(16, 10min);
  const auto key = dedup_key_of(pod_event("u1", "m"));
  EXPECT_EQ(r.repeat_of(key, 1'000), nullptr);
  recent_event e;
  e.name = "web-1.abc";
  e.last_seen_ms = 1'000;
  r.remember(key, e);
  auto* again = r.repeat_of(key, 1'000 + 9 * 60'000);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->name, "web-1.abc");
}

TEST(EventDedup, aRepeatAfterTheWindowStartsANewEvent) {
  recent_events r(16, 10min);
  recent_event e;
  e.last_seen_ms = 0;
  r.remember("k", e);
  EXPECT_EQ(r.repeat_of("k", 10 * 60'000 + 1), nullptr);
  EXPECT_EQ(r.size(), 0u);
}

TEST(EventDedup, memoryStaysBoundedWhateverTheNumberOfObjects) {
  recent_events r(4096, 10min);
  for (int i = 0; i < 10'000; ++i) r.remember("k" + std::to_string(i), recent_event{});
  EXPECT_EQ(r.size(), 4096u);
}

TEST(ObjectRateLimiter, allowsABurstThenOneEventPerRefillPeriodPerObject) {
  object_rate_limiter l(16, 3, 10s);
  EXPECT_TRUE(l.allow("a", 0));
  EXPECT_TRUE(l.allow("a", 0));
  EXPECT_TRUE(l.allow("a", 0));
  EXPECT_FALSE(l.allow("a", 0));
  EXPECT_TRUE(l.allow("b", 0)) << "another object has its own bucket";
  EXPECT_FALSE(l.allow("a", 9'999));
  EXPECT_TRUE(l.allow("a", 10'000));
  EXPECT_FALSE(l.allow("a", 10'001));
}

TEST(EventNames, areTheObjectNameAndAHexClockUniqueWithinOneMillisecond) {
  auto a = event_name_for("web-1", 1'700'000'000'000, 0);
  auto b = event_name_for("web-1", 1'700'000'000'000, 1);
  EXPECT_EQ(a.rfind("web-1.", 0), 0u);
  EXPECT_NE(a, b);
  EXPECT_LE(event_name_for(std::string(300, 'x'), 1, 0).size(), 253u);
}

}  // namespace
}  // namespace kp::actors::event_recorder
