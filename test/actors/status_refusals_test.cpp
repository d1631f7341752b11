// A refused status write is remembered per object, generation and body: the same write is not
// sent again until the object's generation or the body changes, and only the first refusal of a
// generation is reported as new.
#include <gtest/gtest.h>

#include "actors/status_refusals.hpp"

namespace kp::actors {
namespace {

TEST(StatusRefusals, OnlyInvalidBadRequestAndForbiddenAreRefusals) {
  EXPECT_TRUE(status_refusals::is_refusal(make_error("invalid", "x")));
  EXPECT_TRUE(status_refusals::is_refusal(make_error("bad_request", "x")));
  EXPECT_TRUE(status_refusals::is_refusal(make_error("forbidden", "x")));
  EXPECT_FALSE(status_refusals::is_refusal(make_error("conflict", "x")));
  EXPECT_FALSE(status_refusals::is_refusal(make_error("timeout", "x")));
  EXPECT_FALSE(status_refusals::is_refusal(make_error("not_found", "x")));
}

TEST(StatusRefusals, ARefusedBodyIsHeldBackUntilTheGenerationChanges) {
  status_refusals r;
  EXPECT_FALSE(r.refused("default", 3, "a"));
  EXPECT_TRUE(r.record("default", 3, "a"));  // first refusal of generation 3: log it
  EXPECT_TRUE(r.refused("default", 3, "a"));
  EXPECT_FALSE(r.refused("default", 3, "b"));  // something else to say: try it
  EXPECT_FALSE(r.record("default", 3, "b"));   // same generation: not logged again
  EXPECT_TRUE(r.refused("default", 3, "b"));
  EXPECT_FALSE(r.refused("default", 4, "a"));  // a new spec: try again
  EXPECT_TRUE(r.record("default", 4, "a"));
  EXPECT_FALSE(r.refused("default", 4, "b"));  // the old generation's bodies are forgotten
  EXPECT_FALSE(r.refused("other", 4, "a"));
  r.forget("default");
  EXPECT_FALSE(r.refused("default", 4, "a"));
}

TEST(StatusRefusals, TheReportCountsEveryRefusalAndLogsOncePerGeneration) {
  prometheus::Registry registry;
  obs::karpenter_metrics metrics(registry);
  obs::logger log{"test"};
  status_refusals r;
  auto e = make_error("invalid", "status.conditions[2].message: Required value");
  r.report(e, "ProxmoxNodeClass", "default", 1, "a", &metrics, log);
  r.report(e, "ProxmoxNodeClass", "default", 1, "b", &metrics, log);
  r.report(e, "ProxmoxNodeClass", "default", 1, "a", nullptr, log);
  EXPECT_TRUE(r.refused("default", 1, "a"));
  EXPECT_TRUE(r.refused("default", 1, "b"));
  EXPECT_EQ(metrics.status_write_refusals.Add({{"kind", "ProxmoxNodeClass"}}).Value(), 2.0);
}

TEST(StatusRefusals, TheDigestIgnoresTimesButNotWhatTheConditionSays) {
  kube::condition c{"Ready", "True", "Ready", "", "2024-01-01T00:00:00Z", "", 2};
  auto later = c;
  later.last_transition_time = "2025-01-01T00:00:00Z";
  EXPECT_EQ(conditions_digest({c}), conditions_digest({later}));
  auto other = c;
  other.message = "now with a message";
  EXPECT_NE(conditions_digest({c}), conditions_digest({other}));
}

}  // namespace
}  // namespace kp::actors
