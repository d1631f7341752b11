// karpenter.sh/do-not-disrupt as Karpenter v1.14 reads it (designs/do-not-disrupt-grace-period.md,
// pkg/utils/pod/scheduling.go): "true" for good, a positive Go duration from the pod's start
// time, anything else ignored with a reason; on a Node only "true". Clocks are fixed.
#include "core/disruption/do_not_disrupt.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/disruption/planner.hpp"
#include "test/core/disruption/fixture.hpp"

namespace kp::disruption {
namespace {

using namespace std::chrono_literals;
using fixture::builder;
using state = do_not_disrupt::state;

constexpr std::int64_t started = fixture::epoch_ms;  // the pod's status.startTime
constexpr std::int64_t hour_ms = 3'600'000;

std::string type4() {
  return instance_types::generic_name(4, 2);
}

const candidate* find(const candidate_set& cs, const std::string& node) {
  for (const auto& k : cs.all)
    if (k.name == node) return &k;
  return nullptr;
}

TEST(DoNotDisrupt, TrueProtectsForGoodWhateverThePodsAge) {
  auto d = read_pod_do_not_disrupt("true", started, started + 1000 * hour_ms);
  EXPECT_EQ(d.what, state::forever);
  EXPECT_TRUE(d.active());
}

TEST(DoNotDisrupt, NoAnnotationProtectsNothing) {
  auto d = read_pod_do_not_disrupt(std::nullopt, started, started);
  EXPECT_EQ(d.what, state::absent);
  EXPECT_FALSE(d.active());
}

TEST(DoNotDisrupt, ADurationProtectsUntilThatLongAfterThePodStarted) {
  // The design's example: started 10:00 with "4h", protected until 14:00.
  auto before = read_pod_do_not_disrupt("4h", started, started + 4 * hour_ms - 1);
  EXPECT_EQ(before.what, state::until);
  EXPECT_EQ(before.until_unix_ms, started + 4 * hour_ms);
  EXPECT_TRUE(before.active());
  // At the instant itself the pod's age equals the duration: no longer protected (age < d).
  auto at = read_pod_do_not_disrupt("4h", started, started + 4 * hour_ms);
  EXPECT_EQ(at.what, state::elapsed);
  EXPECT_FALSE(at.active());
}

TEST(DoNotDisrupt, CompoundGoDurationsAreRead) {
  EXPECT_EQ(read_pod_do_not_disrupt("1h30m", started, started + 89 * 60'000).what, state::until);
  EXPECT_EQ(read_pod_do_not_disrupt("1h30m", started, started + 90 * 60'000).what, state::elapsed);
  EXPECT_EQ(read_pod_do_not_disrupt("5s", started, started + 4'999).what, state::until);
}

TEST(DoNotDisrupt, APodWithoutAStartTimeStaysProtected) {
  // Karpenter fails safe: the grace period has not begun to run out.
  auto d = read_pod_do_not_disrupt("5m", std::nullopt, started + 1000 * hour_ms);
  EXPECT_TRUE(d.active());
}

TEST(DoNotDisrupt, AnUnparsableValueIsIgnoredWithTheReasonNamingIt) {
  for (const char* v : {"yes", "TRUE", "false", "4 hours", ""}) {
    auto d = read_pod_do_not_disrupt(v, started, started);
    EXPECT_EQ(d.what, state::invalid) << v;
    EXPECT_FALSE(d.active()) << v;
    EXPECT_NE(d.error.find(std::string("failed to parse \"") + v + "\" as a duration"),
              std::string::npos)
        << d.error;
  }
}

TEST(DoNotDisrupt, AZeroOrNegativeDurationIsIgnoredAsNotPositive) {
  for (const char* v : {"0", "0s", "-1h"}) {
    auto d = read_pod_do_not_disrupt(v, started, started);
    EXPECT_EQ(d.what, state::invalid) << v;
    EXPECT_EQ(d.error, std::string("duration \"") + v + "\" must be positive");
  }
}

TEST(DoNotDisrupt, OnANodeOnlyTrueBlocks) {
  EXPECT_TRUE(node_do_not_disrupt("true"));
  EXPECT_FALSE(node_do_not_disrupt("4h"));
  EXPECT_FALSE(node_do_not_disrupt("yes"));
  EXPECT_FALSE(node_do_not_disrupt(std::nullopt));
}

TEST(DoNotDisruptCandidates, TheGracePeriodRunsFromThePodsStartNotItsCreation) {
  builder b;
  b.add_node("job", type4());
  // Created 3 h ago but started (image pulled, scheduled late) only 30 min ago: "1h" still holds.
  auto& p = b.add_pod("job", "slow-start", 100, 64, 3h);
  p.start_unix_ms = b.now_ms - 30 * 60'000;
  p.annotations = {{"karpenter.sh/do-not-disrupt", "1h"}};
  auto cs = find_candidates(b.c);
  ASSERT_NE(find(cs, "job"), nullptr);
  EXPECT_NE(find(cs, "job")->blocked.find("has annotation karpenter.sh/do-not-disrupt until "),
            std::string::npos)
      << find(cs, "job")->blocked;
  // Thirty-one minutes on, it has elapsed.
  b.c.now += 31min;
  cs = find_candidates(b.c);
  EXPECT_EQ(find(cs, "job")->blocked, "");
}

TEST(DoNotDisruptCandidates, TheReasonSaysWhenTheGracePeriodEnds) {
  builder b;
  b.add_node("job", type4());
  auto& p = b.add_pod("job", "train", 100, 64, 1h);
  p.annotations = {{"karpenter.sh/do-not-disrupt", "4h"}};
  // Started at now - 1h: protected until now + 3h = 2026-11-23T03:00:00Z.
  auto cs = find_candidates(b.c);
  EXPECT_EQ(find(cs, "job")->blocked,
            "pod default/train has annotation karpenter.sh/do-not-disrupt until "
            "2026-11-23T03:00:00Z");
}

TEST(DoNotDisruptCandidates, DaemonSetPodsBlockWithTheAnnotationAsInKarpenter) {
  // Karpenter checks every active pod on the node, DaemonSet and mirror pods included.
  builder b;
  b.add_node("agent", type4());
  auto& p = b.add_pod("agent", "log-agent", 100, 64);
  p.owners = {{"DaemonSet", "log-agent", "uid-ds", true}};
  p.annotations = {{"karpenter.sh/do-not-disrupt", "true"}};
  auto cs = find_candidates(b.c);
  EXPECT_NE(find(cs, "agent")->blocked, "");
  EXPECT_TRUE(find(cs, "agent")->empty);  // still no reschedulable pod
}

TEST(DoNotDisruptCandidates, TerminatingAndFinishedPodsDoNotBlock) {
  builder b;
  b.add_node("done", type4());
  auto& finished = b.add_pod("done", "finished", 100, 64);
  finished.phase = "Succeeded";
  finished.annotations = {{"karpenter.sh/do-not-disrupt", "true"}};
  auto& leaving = b.add_pod("done", "leaving", 100, 64);
  leaving.terminating = true;
  leaving.annotations = {{"karpenter.sh/do-not-disrupt", "true"}};
  auto cs = find_candidates(b.c);
  EXPECT_EQ(find(cs, "done")->blocked, "");
}

TEST(DoNotDisruptCandidates, AnInvalidValueDoesNotBlockAndIsReportedOnThePod) {
  builder b;
  b.add_node("typo", type4());
  b.add_pod("typo", "web", 100, 64).annotations = {{"karpenter.sh/do-not-disrupt", "4 hours"}};
  auto p = plan_disruption(b.c);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_EQ(p.warnings[0].kind, "Pod");
  EXPECT_EQ(p.warnings[0].namespace_, "default");
  EXPECT_EQ(p.warnings[0].name, "web");
  EXPECT_NE(p.warnings[0].message.find("Invalid karpenter.sh/do-not-disrupt annotation: failed "
                                       "to parse \"4 hours\" as a duration"),
            std::string::npos)
      << p.warnings[0].message;
  EXPECT_NE(p.warnings[0].message.find("ignoring annotation"), std::string::npos);
  auto cs = find_candidates(b.c);
  EXPECT_EQ(find(cs, "typo")->blocked, "");
}

TEST(DoNotDisruptCandidates, ADurationOnANodeProtectsNothingAndIsReported) {
  builder b;
  b.add_node("pinned", type4()).annotations = {{"karpenter.sh/do-not-disrupt", "4h"}};
  auto p = plan_disruption(b.c);
  ASSERT_EQ(p.commands.size(), 1u);  // the empty node goes: v1.14 reads only "true" on a Node
  EXPECT_EQ(p.commands[0].nodes, std::vector<std::string>{"pinned"});
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_EQ(p.warnings[0].kind, "Node");
  EXPECT_NE(p.warnings[0].message.find("\"4h\" is ignored"), std::string::npos);
}

TEST(DoNotDisruptCandidates, AGracePeriodHoldsConsolidationButNotExpiration) {
  // v1.14 expiration deletes the NodeClaim whatever its pods say; the drain then waits for the
  // pod's grace period (or the terminationGracePeriod). Consolidation waits before it starts.
  builder b;
  b.add_node("old", type4(), 48h);
  b.claim("old").expire_after = "24h";
  b.add_node("roomy", type4(), 1h);
  b.add_pod("old", "job", 100, 64, 1h).annotations = {{"karpenter.sh/do-not-disrupt", "2h"}};
  auto p = plan_disruption(b.c);
  ASSERT_EQ(p.expirations.size(), 1u);
  EXPECT_EQ(p.expirations[0].nodes, std::vector<std::string>{"old"});
  EXPECT_TRUE(std::none_of(p.commands.begin(), p.commands.end(), [](const command& c) {
    return std::find(c.nodes.begin(), c.nodes.end(), "old") != c.nodes.end();
  }));
}

}  // namespace
}  // namespace kp::disruption
