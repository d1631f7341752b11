// The pure pieces of termination: providerID parsing, which pods a drain waits for, evicts,
// leaves to do-not-disrupt or force-deletes at the deadline, in Karpenter's tier order, and the
// NodeClaim's termination deadline.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "actors/termination/drain_plan.hpp"
#include "protocol/kube/model_translation.hpp"
#include "protocol/provider_id.hpp"

namespace kp::actors::termination {
namespace {

using protocol::parse_provider_id;

const std::int64_t now = *kube::parse_rfc3339_ms("2026-01-01T12:00:00Z");

// The drain reads the snapshot's pods, which are model pods.
model::pod make_pod(const std::string& name) {
  model::pod p;
  p.namespace_ = "default";
  p.name = name;
  p.uid = "uid-" + name;
  p.node_name = "node-a";
  p.phase = "Running";
  p.start_unix_ms = kube::parse_rfc3339_ms("2026-01-01T11:00:00Z");
  return p;
}

model::pod daemon(model::pod p) {
  p.owners.push_back({"DaemonSet", "ds", "ds-uid", true});
  return p;
}

model::pod critical(model::pod p) {
  p.priority_class_name = "system-node-critical";
  return p;
}

void delete_at(model::pod& p, const std::string& when) {
  p.terminating = true;
  p.deletion_unix_ms = kube::parse_rfc3339_ms(when);
}

std::vector<std::string> names(const std::vector<const model::pod*>& pods) {
  std::vector<std::string> out;
  for (const auto* p : pods) out.push_back(p->name);
  return out;
}

std::vector<const model::pod*> ptrs(const std::vector<model::pod>& pods) {
  std::vector<const model::pod*> out;
  for (const auto& p : pods) out.push_back(&p);
  return out;
}

TEST(ProviderId, ParsesRegionAndVmidAndRefusesOthers) {
  auto id = parse_provider_id("proxmox://pve-sim/20001");
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(id->region, "pve-sim");
  EXPECT_EQ(id->vmid, 20001u);
  for (const char* bad :
       {"", "aws:///us-east-1a/i-123", "proxmox://", "proxmox:///20001", "proxmox://r/",
        "proxmox://r/abc", "proxmox://r/0", "proxmox://r/12x", "proxmox://r/99999999999"}) {
    EXPECT_FALSE(parse_provider_id(bad).has_value()) << bad;
  }
}

TEST(DrainTier, OrdersNonCriticalBeforeDaemonsBeforeCritical) {
  EXPECT_EQ(tier_of(make_pod("a")), drain_tier::non_critical);
  EXPECT_EQ(tier_of(daemon(make_pod("a"))), drain_tier::non_critical_daemon);
  EXPECT_EQ(tier_of(critical(make_pod("a"))), drain_tier::critical);
  EXPECT_EQ(tier_of(critical(daemon(make_pod("a")))), drain_tier::critical_daemon);
  auto cluster_critical = make_pod("a");
  cluster_critical.priority_class_name = "system-cluster-critical";
  EXPECT_TRUE(is_critical(cluster_critical));
}

TEST(DrainPlan, EvictsOnlyTheFirstNonEmptyTierAndWaitsForAll) {
  std::vector<model::pod> pods = {critical(daemon(make_pod("cd"))), daemon(make_pod("d")),
                                  critical(make_pod("c")), make_pod("web-1"), make_pod("web-2")};
  auto plan = plan_drain(ptrs(pods), now, std::nullopt);
  EXPECT_EQ(names(plan.evict), (std::vector<std::string>{"web-1", "web-2"}));
  EXPECT_EQ(plan.waiting.size(), 5u);
  EXPECT_FALSE(plan.drained());

  // Table: with the lower tiers gone, the next one is evicted.
  struct row {
    std::vector<model::pod> pods;
    std::vector<std::string> evicted;
  };
  std::vector<row> rows = {
      {{critical(daemon(make_pod("cd"))), daemon(make_pod("d")), critical(make_pod("c"))}, {"d"}},
      {{critical(daemon(make_pod("cd"))), critical(make_pod("c"))}, {"c"}},
      {{critical(daemon(make_pod("cd")))}, {"cd"}},
  };
  for (const auto& r : rows) {
    EXPECT_EQ(names(plan_drain(ptrs(r.pods), now, std::nullopt).evict), r.evicted);
  }
}

TEST(DrainPlan, SkipsTerminalMirrorAndTaintToleratingPods) {
  auto done = make_pod("done");
  done.phase = "Succeeded";
  auto failed = make_pod("failed");
  failed.phase = "Failed";
  auto mirror = make_pod("mirror");
  mirror.annotations.edit()["kubernetes.io/config.mirror"] = "abc";
  auto tolerant = make_pod("tolerant");
  tolerant.tolerations.push_back({"karpenter.sh/disrupted", "Exists", "", "NoSchedule", {}});
  auto tolerate_all = make_pod("all");
  tolerate_all.tolerations.push_back({"", "Exists", "", "", {}});
  auto other_effect = make_pod("noexec");  // tolerating NoExecute only does not count
  other_effect.tolerations.push_back({"karpenter.sh/disrupted", "Exists", "", "NoExecute", {}});
  std::vector<model::pod> pods = {done, failed, mirror, tolerant, tolerate_all, other_effect};
  auto plan = plan_drain(ptrs(pods), now, std::nullopt);
  EXPECT_EQ(names(plan.waiting), (std::vector<std::string>{"noexec"}));
  EXPECT_EQ(names(plan.evict), (std::vector<std::string>{"noexec"}));
  EXPECT_TRUE(plan_drain(ptrs({done, mirror, tolerant}), now, std::nullopt).drained());
}

TEST(DrainPlan, TerminatingPodsAreWaitedForButNotEvictedAgainUntilStuck) {
  auto leaving = make_pod("leaving");
  delete_at(leaving, "2026-01-01T11:59:50Z");
  auto stuck = make_pod("stuck");
  delete_at(stuck, "2026-01-01T11:58:00Z");  // > 1 min ago
  std::vector<model::pod> pods = {leaving, stuck};
  auto plan = plan_drain(ptrs(pods), now, std::nullopt);
  EXPECT_EQ(names(plan.waiting), (std::vector<std::string>{"leaving"}));
  EXPECT_TRUE(plan.evict.empty());
}

TEST(DrainPlan, DoNotDisruptBlocksUntilTheDeadlineThenEverythingIsDeleted) {
  auto keep = make_pod("keep");
  keep.annotations.edit()["karpenter.sh/do-not-disrupt"] = "true";
  auto web = make_pod("web");
  std::vector<model::pod> pods = {keep, web};
  auto deadline = now + 120'000;
  auto plan = plan_drain(ptrs(pods), now, deadline);
  EXPECT_EQ(names(plan.blocked), (std::vector<std::string>{"keep"}));
  EXPECT_EQ(names(plan.evict), (std::vector<std::string>{"web"}));
  EXPECT_TRUE(plan.force_delete.empty());
  // 30 s (the default pod grace) before the deadline, both are deleted outright.
  auto late = plan_drain(ptrs(pods), deadline - 30'000, deadline);
  EXPECT_EQ(names(late.force_delete), (std::vector<std::string>{"keep", "web"}));
  EXPECT_TRUE(late.blocked.empty());
  EXPECT_TRUE(late.evict.empty());
  EXPECT_EQ(force_delete_grace_seconds(deadline - 30'000, deadline), 30);
  EXPECT_EQ(force_delete_grace_seconds(deadline + 5'000, deadline), 1);
}

TEST(DrainPlan, DoNotDisruptDurationsRunOutAndInvalidValuesAreIgnored) {
  struct row {
    std::string value;
    bool active;
  };
  // The pod started at 11:00, now is 12:00.
  for (const auto& r : std::vector<row>{{"true", true},
                                        {"2h", true},
                                        {"30m", false},
                                        {"false", false},
                                        {"-1h", false},
                                        {"soon", false}}) {
    auto p = make_pod("p");
    p.annotations.edit()["karpenter.sh/do-not-disrupt"] = r.value;
    EXPECT_EQ(do_not_disrupt_active(p, now), r.active) << r.value;
  }
  EXPECT_FALSE(do_not_disrupt_active(make_pod("none"), now));
}

TEST(TerminationDeadline, FromAnnotationOrGracePeriodCappedByDrainTimeout) {
  kube::node_claim c;
  EXPECT_FALSE(termination_deadline_ms(c, 0).has_value());
  c.metadata.deletion_timestamp = "2026-01-01T12:00:00Z";
  EXPECT_FALSE(termination_deadline_ms(c, 0).has_value());
  c.spec.termination_grace_period = "10m";
  EXPECT_EQ(termination_deadline_ms(c, 0), now + 600'000);
  EXPECT_EQ(termination_deadline_ms(c, 60'000), now + 60'000);
  c.metadata.annotations["karpenter.sh/nodeclaim-termination-timestamp"] = "2026-01-01T12:05:00Z";
  EXPECT_EQ(termination_deadline_ms(c, 0), now + 300'000);
}

TEST(DisruptedTaint, ReplacesATaintOfTheSameKeyAndKeepsOthers) {
  std::vector<kube::taint> taints = {{"dedicated", "gpu", "NoSchedule", ""},
                                     {"karpenter.sh/disrupted", "", "NoExecute", ""}};
  EXPECT_FALSE(has_disrupted_taint(taints));
  auto out = with_disrupted_taint(taints, "2026-01-01T12:00:00Z");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].key, "dedicated");
  EXPECT_EQ(out[1].effect, "NoSchedule");
  EXPECT_TRUE(has_disrupted_taint(out));
}

}  // namespace
}  // namespace kp::actors::termination
