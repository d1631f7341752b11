// The disruption actor's decision flow on virtual time (CAF's test coordinator): the period,
// the validation wait, re-validation on the newest snapshot, budgets, blocked nodes, the
// replacement wait and its timeout, expiration and node repair. Kubernetes writes go to a fake.
#include <gtest/gtest.h>

#include <mutex>

#include <prometheus/registry.h>

#include "../caf_test_fixture.hpp"
#include "actors/disruption/disruption_actor.hpp"
#include "snapshot_builder.hpp"

namespace kp::actors::disruption {
namespace {

using namespace std::chrono_literals;
using testing::snapshot_builder;

struct fake_writes : cluster_writes {
  std::mutex m;
  std::vector<std::string> tainted, untainted, deleted, created, marked, marked_reasons;
  std::vector<kube::node_claim> created_objects;
  std::vector<std::pair<std::string, std::map<std::string, std::string>>> annotated;
  bool fail_create = false;

  void taint_disrupted(const std::string& node, bool on, done d) override {
    {
      std::lock_guard lock(m);
      (on ? tainted : untainted).push_back(node);
    }
    d(status{});
  }
  void create_nodeclaim(const kube::node_claim& claim, done d) override {
    {
      std::lock_guard lock(m);
      created.push_back(claim.metadata.name);
      created_objects.push_back(claim);
    }
    if (fail_create) return d(status{make_error("invalid", "no")});
    d(status{});
  }
  void delete_nodeclaim(const std::string& name, done d) override {
    {
      std::lock_guard lock(m);
      deleted.push_back(name);
    }
    d(status{});
  }
  void annotate_nodeclaim(const std::string& name, const std::map<std::string, std::string>& set,
                          done d) override {
    {
      std::lock_guard lock(m);
      annotated.emplace_back(name, set);
    }
    d(status{});
  }
  void mark_disruption_reason(const std::string& name, condition_reason reason, const std::string&,
                              done d) override {
    {
      std::lock_guard lock(m);
      marked.push_back(name);
      marked_reasons.push_back(reason.str());
    }
    d(status{});
  }
};

struct recorded_events {
  std::mutex m;
  std::vector<protocol::event_record> all;
  bool has(const std::string& kind, const std::string& name, const std::string& reason,
           const std::string& part = "") {
    std::lock_guard lock(m);
    for (const auto& e : all)
      if (e.kind == kind && e.name == name && e.reason == reason &&
          e.message.find(part) != std::string::npos)
        return true;
    return false;
  }
  int count(const std::string& kind, const std::string& reason, const std::string& part) {
    std::lock_guard lock(m);
    int n = 0;
    for (const auto& e : all)
      if (e.kind == kind && e.reason == reason && e.message.find(part) != std::string::npos) ++n;
    return n;
  }
};

protocol::event_recorder_actor::behavior_type recorder(protocol::event_recorder_actor::pointer,
                                                       std::shared_ptr<recorded_events> out) {
  return {[out](protocol::event_record& e) {
    std::lock_guard lock(out->m);
    out->all.push_back(std::move(e));
  }};
}

class DisruptionActor : public kp::test::caf_test {
 protected:
  DisruptionActor() {
    metrics_ = std::make_shared<obs::karpenter_metrics>(registry_);
    ctx_.metrics = metrics_;
    ctx_.events = sys().spawn(recorder, events_);
    ctx_.instance_types = instance_types::builtin_instance_types();
    ctx_.wall_clock_ms = [this] { return b_.now; };
  }

  ~DisruptionActor() override {
    // The actor's timers keep it alive; end it (and the recorder) so that the system can stop.
    if (actor_) caf::anon_send_exit(actor_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(ctx_.events, caf::exit_reason::user_shutdown);
    sched().run();
  }

  void start() { actor_ = spawn_disruption(sys(), ctx_, opts_, writes_); }
  void send(const protocol::snapshot_ptr& s) {
    caf::anon_send(actor_, s);
    sched().run();
  }
  // Moves virtual time (and the wall clock) forward, running whatever falls due.
  void advance(std::chrono::milliseconds d) {
    b_.now += d.count();
    sched().advance_time(d);
    sched().run();
  }
  double counter(prometheus::Family<prometheus::Counter>& f,
                 const std::map<std::string, std::string>& labels) {
    return f.Add(labels).Value();
  }

  prometheus::Registry registry_;
  std::shared_ptr<obs::karpenter_metrics> metrics_;
  std::shared_ptr<recorded_events> events_ = std::make_shared<recorded_events>();
  std::shared_ptr<fake_writes> writes_ = std::make_shared<fake_writes>();
  controller_context ctx_;
  disruption_options opts_;
  snapshot_builder b_;
  protocol::disruption_actor actor_;
};

TEST_F(DisruptionActor, EmptyNodesGoOnlyAfterThePeriodAndTheValidationWait) {
  for (auto n : {"a", "b", "c"}) b_.add_node(n);
  b_.add_node("busy");
  b_.add_pod("busy", "web-1");
  start();
  send(b_.build());
  advance(9s);
  EXPECT_TRUE(writes_->tainted.empty());
  advance(1s);  // the pass: a command is proposed, nothing is written yet
  EXPECT_TRUE(writes_->tainted.empty());
  advance(14s);
  EXPECT_TRUE(writes_->deleted.empty());
  advance(1s);  // 15 s validation wait over
  EXPECT_EQ(writes_->tainted.size(), 3u);
  EXPECT_EQ(writes_->marked.size(), 3u);
  // The DisruptionReason condition carries Karpenter's reason.
  EXPECT_EQ(writes_->marked_reasons, (std::vector<std::string>(3, "Empty")));
  std::vector<std::string> deleted = writes_->deleted;
  std::sort(deleted.begin(), deleted.end());
  EXPECT_EQ(deleted, (std::vector<std::string>{"nc-a", "nc-b", "nc-c"}));
  EXPECT_TRUE(writes_->created.empty());
  EXPECT_TRUE(events_->has("NodeClaim", "nc-a", "Disrupting", "Empty"));
  EXPECT_TRUE(events_->has("NodeClaim", "nc-a", "DisruptionTerminating", "Empty"));
  EXPECT_TRUE(events_->has("Node", "a", "Disrupting"));
  EXPECT_EQ(counter(metrics_->disruption_decisions,
                    {{"decision", "delete"}, {"reason", "empty"}, {"consolidation_type", "empty"}}),
            1);
  EXPECT_EQ(counter(metrics_->nodeclaims_disrupted,
                    {{"reason", "empty"}, {"nodepool", "default"}, {"capacity_type", "on-demand"}}),
            3);
}

TEST_F(DisruptionActor, APodArrivingDuringTheValidationWaitInvalidatesTheCommand) {
  b_.add_node("a");
  start();
  send(b_.build());
  advance(10s);  // proposed: delete a
  b_.add_pod("a", "arrived");
  send(b_.build());
  advance(15s);
  EXPECT_TRUE(writes_->tainted.empty());
  EXPECT_TRUE(writes_->deleted.empty());
  EXPECT_EQ(counter(metrics_->disruption_failed_validations, {{"consolidation_type", "empty"}}), 1);
}

TEST_F(DisruptionActor, ABudgetOfThirtyPercentLetsThreeOfTenEmptyNodesGo) {
  b_.pool("default", "30%");
  for (int i = 0; i < 10; ++i) b_.add_node("n" + std::to_string(i));
  start();
  send(b_.build());
  advance(10s);
  advance(15s);
  EXPECT_EQ(writes_->deleted.size(), 3u);
  // The seven held back say why, with the budget's figures.
  EXPECT_EQ(
      events_->count("Node", "DisruptionBlocked", "(budget: 3 of 10 nodes, 0 being disrupted)"), 7);
  EXPECT_EQ(
      metrics_->nodepools_allowed_disruptions.Add({{"nodepool", "default"}, {"reason", "Empty"}})
          .Value(),
      3);
}

TEST_F(DisruptionActor, NothingHappensBeforeTheSnapshotIsSynced) {
  b_.add_node("a");
  start();
  send(b_.build(/*synced=*/false));
  advance(10s);
  advance(15s);
  EXPECT_TRUE(writes_->deleted.empty());
}

TEST_F(DisruptionActor, ADoNotDisruptPodBlocksItsNodeWithAnEvent) {
  b_.add_node("a");
  b_.add_pod("a", "precious").metadata.annotations["karpenter.sh/do-not-disrupt"] = "true";
  b_.pool_of().spec.disruption.consolidation_policy = "WhenEmpty";
  start();
  send(b_.build());
  advance(10s);
  advance(15s);
  EXPECT_TRUE(writes_->deleted.empty());
  EXPECT_TRUE(events_->has("Node", "a", "DisruptionBlocked", "karpenter.sh/do-not-disrupt"));
  EXPECT_TRUE(events_->has("NodeClaim", "nc-a", "DisruptionBlocked", "do-not-disrupt"));
  EXPECT_GE(counter(metrics_->disruption_blocked, {{"reason", "do-not-disrupt"}}), 1);
}

TEST_F(DisruptionActor, APdbAllowingNoDisruptionBlocksItsNode) {
  b_.add_node("a");
  b_.add_node("b");
  b_.add_pod("a", "web-1");
  b_.add_pdb("web", "web-1", 0);
  start();
  send(b_.build());
  advance(10s);
  advance(15s);
  EXPECT_TRUE(events_->has("Node", "a", "DisruptionBlocked", "PodDisruptionBudget default/web"));
  for (const auto& d : writes_->deleted) EXPECT_NE(d, "nc-a");
}

// A drifted node holding a pod is replaced: the replacement is created, the old NodeClaim stays
// until the replacement is Initialized.
class DriftReplacement : public DisruptionActor {
 protected:
  void SetUp() override {
    b_.add_node("a");
    b_.add_pod("a", "web-1", 500, 512);
    b_.claim("nc-a").metadata.annotations = {{"karpenter.sh/nodepool-hash", "old"},
                                             {"karpenter.sh/nodepool-hash-version", "v3"}};
    b_.pool_of().metadata.annotations = {{"karpenter.sh/nodepool-hash", "new"},
                                         {"karpenter.sh/nodepool-hash-version", "v3"}};
    b_.pool_of().spec.disruption.consolidate_after = "Never";
    opts_.replacement_timeout = 5min;
    opts_.seed = 42;
    start();
    send(b_.build());
    advance(10s);
    advance(15s);
  }
};

TEST_F(DriftReplacement, TheOldNodeClaimIsDeletedOnlyOnceTheReplacementIsInitialized) {
  ASSERT_EQ(writes_->tainted, std::vector<std::string>{"a"});
  ASSERT_EQ(writes_->created.size(), 1u);
  EXPECT_EQ(writes_->created[0].rfind("default-", 0), 0u);
  EXPECT_EQ(writes_->created_objects[0].metadata.annotations.at("karpenter.sh/nodepool-hash"),
            "new");
  EXPECT_TRUE(writes_->deleted.empty());
  EXPECT_TRUE(events_->has("NodeClaim", "nc-a", "DisruptionLaunching", "Drifted"));

  auto replacement = std::make_shared<kube::node_claim>(writes_->created_objects[0]);
  replacement->status.conditions = {{"Launched", "True", "", "", "", "", 0}};
  b_.claims[replacement->metadata.name] = replacement;
  send(b_.build());
  EXPECT_TRUE(writes_->deleted.empty());  // launched, not initialized

  auto ready = std::make_shared<kube::node_claim>(*replacement);
  ready->status.conditions.push_back({"Initialized", "True", "", "", "", "", 0});
  b_.claims[ready->metadata.name] = ready;
  send(b_.build());
  EXPECT_EQ(writes_->deleted, std::vector<std::string>{"nc-a"});
  EXPECT_EQ(counter(metrics_->disruption_decisions,
                    {{"decision", "replace"}, {"reason", "drifted"}, {"consolidation_type", ""}}),
            1);
}

TEST_F(DriftReplacement, AReplacementThatNeverInitializesUndoesTheTaint) {
  ASSERT_EQ(writes_->created.size(), 1u);
  advance(5min);
  EXPECT_TRUE(writes_->deleted.empty());
  EXPECT_EQ(writes_->untainted, std::vector<std::string>{"a"});
  EXPECT_TRUE(events_->has("Node", "a", "DisruptionBlocked", "not initialized within"));
  // The actor is idle again and plans the next pass.
  const auto created = writes_->created.size();
  advance(10s);
  advance(15s);
  EXPECT_GT(writes_->created.size(), created);
}

TEST_F(DisruptionActor, AReplacementThatCannotBeCreatedUndoesTheTaintAndDeletesNothing) {
  writes_->fail_create = true;
  b_.add_node("a");
  b_.add_pod("a", "web-1", 500, 512);
  b_.claim("nc-a").metadata.annotations = {{"karpenter.sh/nodepool-hash", "old"},
                                           {"karpenter.sh/nodepool-hash-version", "v3"}};
  b_.pool_of().metadata.annotations = {{"karpenter.sh/nodepool-hash", "new"},
                                       {"karpenter.sh/nodepool-hash-version", "v3"}};
  b_.pool_of().spec.disruption.consolidate_after = "Never";
  start();
  send(b_.build());
  advance(10s);
  advance(15s);
  EXPECT_EQ(writes_->created.size(), 1u);
  EXPECT_EQ(writes_->untainted, std::vector<std::string>{"a"});
  EXPECT_TRUE(writes_->deleted.empty());
  EXPECT_TRUE(events_->has("Node", "a", "DisruptionBlocked", "creating replacement"));
}

TEST_F(DisruptionActor, AHashVersionChangeRestampsAndNeverDrifts) {
  b_.add_node("a");
  b_.add_pod("a", "web-1", 500, 512);
  b_.claim("nc-a").metadata.annotations = {{"karpenter.sh/nodepool-hash", "old"},
                                           {"karpenter.sh/nodepool-hash-version", "v2"}};
  b_.pool_of().metadata.annotations = {{"karpenter.sh/nodepool-hash", "new"},
                                       {"karpenter.sh/nodepool-hash-version", "v3"}};
  b_.pool_of().spec.disruption.consolidate_after = "Never";
  start();
  send(b_.build());
  advance(10s);
  advance(15s);
  ASSERT_FALSE(writes_->annotated.empty());
  EXPECT_EQ(writes_->annotated[0].first, "nc-a");
  EXPECT_EQ(writes_->annotated[0].second.at("karpenter.sh/nodepool-hash"), "new");
  EXPECT_TRUE(writes_->tainted.empty());
  EXPECT_TRUE(writes_->created.empty());
}

TEST_F(DisruptionActor, AnExpiredNodeIsDeletedAtOnceEvenWithDoNotDisrupt) {
  b_.add_node("old", 800h);
  b_.add_pod("old", "precious").metadata.annotations["karpenter.sh/do-not-disrupt"] = "true";
  b_.pool_of().spec.disruption.consolidate_after = "Never";
  start();
  send(b_.build());
  advance(10s);
  EXPECT_EQ(writes_->deleted, std::vector<std::string>{"nc-old"});
  EXPECT_TRUE(events_->has("NodeClaim", "nc-old", "DisruptionTerminating", "Expired"));
  advance(10s);  // the same snapshot again: not deleted twice
  EXPECT_EQ(writes_->deleted.size(), 1u);
}

TEST_F(DisruptionActor, ANodeExpiringWhileAReplacementIsAwaitedIsDeletedAtOnce) {
  b_.add_node("a");
  b_.add_pod("a", "web-1", 500, 512);
  b_.claim("nc-a").metadata.annotations = {{"karpenter.sh/nodepool-hash", "old"},
                                           {"karpenter.sh/nodepool-hash-version", "v3"}};
  b_.add_node("old", 720h - 15s);
  b_.add_pod("old", "big", 1500, 512);
  b_.claim("nc-old").metadata.annotations = {{"karpenter.sh/nodepool-hash", "new"},
                                             {"karpenter.sh/nodepool-hash-version", "v3"}};
  b_.pool_of().metadata.annotations = {{"karpenter.sh/nodepool-hash", "new"},
                                       {"karpenter.sh/nodepool-hash-version", "v3"}};
  b_.pool_of().spec.disruption.consolidate_after = "Never";
  start();
  send(b_.build());
  advance(10s);  // drift of a proposed; old not expired yet
  EXPECT_TRUE(writes_->deleted.empty());
  advance(10s);  // validating: old expires meanwhile
  EXPECT_EQ(writes_->deleted, std::vector<std::string>{"nc-old"});
  advance(5s);  // drift executes and waits for its replacement
  ASSERT_EQ(writes_->created.size(), 1u);
  EXPECT_EQ(writes_->deleted, std::vector<std::string>{"nc-old"});
}

class NodeRepair : public DisruptionActor {
 protected:
  void SetUp() override {
    for (auto n : {"a", "b", "c", "d", "e"}) b_.add_node(n);
    b_.node("a").status.conditions = {{"Ready", "False", "KubeletNotReady", "",
                                       kube::format_rfc3339(b_.now - 31 * 60'000), "", 0}};
    b_.pool_of().spec.disruption.consolidate_after = "Never";
  }
};

TEST_F(NodeRepair, ANotReadyNodeIsLeftAloneWithTheGateOff) {
  start();
  send(b_.build());
  advance(10s);
  EXPECT_TRUE(writes_->deleted.empty());
}

TEST_F(NodeRepair, ANotReadyNodeBeyondTheTolerationIsRepairedWithTheGateOn) {
  ctx_.settings.gates.node_repair = true;
  start();
  send(b_.build());
  advance(10s);
  EXPECT_EQ(writes_->deleted, std::vector<std::string>{"nc-a"});
  EXPECT_EQ(
      counter(metrics_->nodeclaims_disrupted,
              {{"reason", "unhealthy"}, {"nodepool", "default"}, {"capacity_type", "on-demand"}}),
      1);
}

TEST_F(NodeRepair, TooManyUnhealthyNodesBlockRepair) {
  ctx_.settings.gates.node_repair = true;
  b_.node("b").status.conditions = b_.node("a").status.conditions;
  start();
  send(b_.build());
  advance(10s);
  EXPECT_TRUE(writes_->deleted.empty());
  EXPECT_TRUE(events_->has("Node", "a", "NodeRepairBlocked", "20%"));
}

TEST_F(DisruptionActor, ThreeHalfEmptyNodesAreMergedByMultiNodeConsolidation) {
  for (auto n : {"a", "b", "c"}) {
    b_.add_node(n);
    b_.add_pod(n, std::string("web-") + n, 300, 256);
  }
  opts_.seed = 7;
  start();
  send(b_.build());
  advance(10s);
  advance(15s);
  for (const auto& created : writes_->created_objects) {
    auto ready = std::make_shared<kube::node_claim>(created);
    ready->status.conditions = {{"Initialized", "True", "", "", "", "", 0}};
    b_.claims[ready->metadata.name] = ready;
  }
  send(b_.build());
  EXPECT_LE(writes_->created.size(), 1u);  // many-to-one at most
  EXPECT_GE(writes_->deleted.size(), 2u);
  const double multi =
      counter(
          metrics_->disruption_decisions,
          {{"decision", "delete"}, {"reason", "underutilized"}, {"consolidation_type", "multi"}}) +
      counter(
          metrics_->disruption_decisions,
          {{"decision", "replace"}, {"reason", "underutilized"}, {"consolidation_type", "multi"}});
  EXPECT_EQ(multi, 1);
}

TEST_F(DisruptionActor, AMergeIsCountedAsAnApprovedMoveAndThePoolsCostIsExported) {
  for (auto n : {"a", "b", "c"}) {
    b_.add_node(n);
    b_.add_pod(n, std::string("web-") + n, 300, 256);
  }
  start();
  send(b_.build());
  advance(10s);
  EXPECT_EQ(counter(metrics_->consolidation_moves, {{"decision", "approved"},
                                                    {"nodepool", "default"},
                                                    {"policy", "WhenEmptyOrUnderutilized"}}),
            1);
  // Only Balanced moves are scored.
  EXPECT_EQ(metrics_->consolidation_score
                .Add({{"decision", "approved"},
                      {"nodepool", "default"},
                      {"policy", "WhenEmptyOrUnderutilized"}},
                     obs::consolidation_score_buckets())
                .Collect()
                .histogram.sample_count,
            0u);
  EXPECT_GT(metrics_->nodepools_cost.Add({{"nodepool", "default"}}).Value(), 0);
  // The next pass finds the same move: it is not counted twice.
  advance(10s);
  EXPECT_EQ(counter(metrics_->consolidation_moves, {{"decision", "approved"},
                                                    {"nodepool", "default"},
                                                    {"policy", "WhenEmptyOrUnderutilized"}}),
            1);
}

TEST_F(DisruptionActor, ABalancedMergeIsScoredAndItsApprovalIsAnEventOnTheNodePool) {
  // Three 2-vCPU nodes with 300m each merge into one 1-vCPU node: savings 5/6 of the pool's
  // cost for all of its disruption, a score of about 0.83.
  for (auto n : {"a", "b", "c"}) {
    b_.add_node(n);
    b_.add_pod(n, std::string("web-") + n, 300, 256);
  }
  b_.pool_of().spec.disruption.consolidation_policy = "Balanced";
  start();
  send(b_.build());
  advance(10s);
  const std::map<std::string, std::string> approved{
      {"decision", "approved"}, {"nodepool", "default"}, {"policy", "Balanced"}};
  EXPECT_EQ(counter(metrics_->consolidation_moves, approved), 1);
  const auto& score =
      metrics_->consolidation_score.Add(approved, obs::consolidation_score_buckets()).Collect();
  EXPECT_EQ(score.histogram.sample_count, 1u);
  EXPECT_NEAR(score.histogram.sample_sum, 0.83, 0.01);
  EXPECT_TRUE(
      events_->has("NodePool", "default", "ConsolidationApproved",
                   "score 0.83 >= threshold 0.50 (k: 2, savings 83.3%, disruption 100.0%)"));
}

TEST_F(DisruptionActor, AnInvalidDoNotDisruptValueIsAWarningEventOnThePod) {
  b_.add_node("a");
  b_.add_pod("a", "typo").metadata.annotations["karpenter.sh/do-not-disrupt"] = "yes";
  b_.pool_of().spec.disruption.consolidation_policy = "WhenEmpty";
  start();
  send(b_.build());
  advance(10s);
  EXPECT_TRUE(events_->has("Pod", "typo", "InvalidDoNotDisruptAnnotation",
                           "failed to parse \"yes\" as a duration"));
  EXPECT_FALSE(events_->has("Node", "a", "DisruptionBlocked", "do-not-disrupt"));
}

TEST_F(DisruptionActor, TheConservativeModeWaitsForStabilization) {
  opts_.conservative = kp::disruption::conservative_settings{};
  b_.add_node("a");
  b_.add_node("young", 2min);
  b_.add_pod("young", "web-1");
  start();
  send(b_.build());
  advance(10s);
  advance(15s);
  EXPECT_TRUE(writes_->deleted.empty());
  EXPECT_GE(counter(metrics_->disruption_blocked, {{"reason", "stabilization"}}), 1);
}

}  // namespace
}  // namespace kp::actors::disruption
