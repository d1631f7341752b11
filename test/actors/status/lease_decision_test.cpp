// The leader elector's pure decision: create, renew, wait, take over on expiry or when free.
#include "actors/leader_election/lease_decision.hpp"

#include <gtest/gtest.h>

#include "protocol/kube/model_translation.hpp"

namespace kp::actors::leader_election {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t t0 = 1'750'000'000'000;  // a Unix millisecond

kube::lease held_by(const std::string& holder, std::int64_t renewed_ms, std::int64_t seconds = 15) {
  kube::lease l;
  l.metadata.name = "lock";
  l.metadata.namespace_ = "kube-system";
  l.metadata.resource_version = "42";
  l.spec.holder_identity = holder;
  l.spec.lease_duration_seconds = seconds;
  l.spec.acquire_time = format_micro_time(renewed_ms - 60'000);
  l.spec.renew_time = format_micro_time(renewed_ms);
  l.spec.lease_transitions = 3;
  return l;
}

TEST(LeaseDecision, anAbsentLeaseIsCreatedHeldByUs) {
  auto d = decide(std::nullopt, "lock", "kube-system", "me", t0, 15s);
  EXPECT_EQ(d.action, lease_action::create);
  EXPECT_EQ(d.desired.metadata.name, "lock");
  EXPECT_EQ(d.desired.metadata.namespace_, "kube-system");
  EXPECT_EQ(d.desired.spec.holder_identity, "me");
  EXPECT_EQ(d.desired.spec.lease_duration_seconds, 15);
  EXPECT_EQ(d.desired.spec.acquire_time, d.desired.spec.renew_time);
  EXPECT_EQ(d.desired.spec.lease_transitions, 0);
}

TEST(LeaseDecision, aLeaseWeHoldIsRenewedKeepingAcquireTimeAndTransitions) {
  auto current = held_by("me", t0 - 2'000);
  auto d = decide(current, "lock", "kube-system", "me", t0, 15s);
  EXPECT_EQ(d.action, lease_action::renew);
  EXPECT_EQ(d.desired.spec.renew_time, format_micro_time(t0));
  EXPECT_EQ(d.desired.spec.acquire_time, current.spec.acquire_time);
  EXPECT_EQ(d.desired.spec.lease_transitions, 3);
  EXPECT_EQ(d.desired.metadata.resource_version, "42") << "the update must stay optimistic";
}

TEST(LeaseDecision, aLiveLeaseHeldByAnotherReplicaIsLeftAlone) {
  auto d = decide(held_by("other", t0 - 14'000), "lock", "kube-system", "me", t0, 15s);
  EXPECT_EQ(d.action, lease_action::wait);
  EXPECT_EQ(d.holder, "other");
  EXPECT_EQ(d.expires_unix_ms, t0 + 1'000);
}

TEST(LeaseDecision, anExpiredLeaseIsTakenOverCountingATransition) {
  auto d = decide(held_by("other", t0 - 15'001), "lock", "kube-system", "me", t0, 15s);
  EXPECT_EQ(d.action, lease_action::acquire);
  EXPECT_EQ(d.desired.spec.holder_identity, "me");
  EXPECT_EQ(d.desired.spec.acquire_time, format_micro_time(t0));
  EXPECT_EQ(d.desired.spec.renew_time, format_micro_time(t0));
  EXPECT_EQ(d.desired.spec.lease_transitions, 4);
  EXPECT_EQ(d.desired.metadata.resource_version, "42");
}

TEST(LeaseDecision, expiryUsesTheDurationWrittenInTheLeaseNotOurs) {
  // The holder asked for 60 s; our own 15 s setting must not shorten its claim.
  auto d = decide(held_by("other", t0 - 30'000, 60), "lock", "kube-system", "me", t0, 15s);
  EXPECT_EQ(d.action, lease_action::wait);
}

TEST(LeaseDecision, aReleasedLeaseIsTakenAtOnce) {
  auto d = decide(held_by("", t0 - 100, 1), "lock", "kube-system", "me", t0, 15s);
  EXPECT_EQ(d.action, lease_action::acquire);
  EXPECT_EQ(d.desired.spec.lease_duration_seconds, 15);
}

TEST(LeaseDecision, aLeaseWithoutRenewTimeCountsAsExpired) {
  auto l = held_by("other", t0);
  l.spec.renew_time.clear();
  EXPECT_EQ(decide(l, "lock", "kube-system", "me", t0, 15s).action, lease_action::acquire);
}

TEST(LeaseDecision, releasingClearsTheHolderAndShortensTheDuration) {
  auto r = released(held_by("me", t0 - 1'000), t0);
  EXPECT_EQ(r.spec.holder_identity, "");
  EXPECT_EQ(r.spec.lease_duration_seconds, 1);
  EXPECT_EQ(r.spec.lease_transitions, 3);
  EXPECT_EQ(r.metadata.resource_version, "42");
}

TEST(LeaseDecision, microTimeCarriesMillisecondsAndParsesBack) {
  EXPECT_EQ(format_micro_time(1'700'000'000'123), "2023-11-14T22:13:20.123000Z");
  EXPECT_EQ(kube::parse_rfc3339_ms(format_micro_time(t0 + 7)), t0 + 7);
}

}  // namespace
}  // namespace kp::actors::leader_election
