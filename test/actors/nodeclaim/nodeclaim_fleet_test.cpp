// The NodeClaim fleet supervises its actors on virtual time (test_coordinator): an actor that
// throws is started again after the backoff, the backoff grows and is capped, starts short again
// after the actor ran healthy, and every restart leaves an Event on the NodeClaim and a count in
// karpenter_proxmox_actor_restarts_total{actor="nodeclaim"}. The claim actors here are stand-ins
// that throw on demand, behind the same boundary as the real one.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <prometheus/counter.h>
#include <prometheus/registry.h>
#include <caf/all.hpp>

#include "actors/failure_boundary.hpp"
#include "actors/nodeclaim/nodeclaim_fleet.hpp"
#include "observability/karpenter_metrics.hpp"
#include "test/actors/caf_test_fixture.hpp"

namespace kp::actors::nodeclaim {
namespace {

using namespace std::chrono_literals;

// What the stand-in claim actors did, read by the test thread (test_coordinator runs every
// actor on it).
struct claim_log {
  std::map<std::string, int> started;    // by claim name
  std::map<std::string, int> snapshots;  // by claim name, over every incarnation
  protocol::snapshot_ptr last;           // the last snapshot any claim actor was sent
  int throws_left = 0;                   // the next this many snapshots throw
};

protocol::nodeclaim_actor::behavior_type stand_in_claim(protocol::nodeclaim_actor::pointer self,
                                                        claim_log* log, std::string name,
                                                        boundary_ptr boundary) {
  install_boundary(self, std::move(boundary), "NodeClaim " + name);
  ++log->started[name];
  return {[log, name](protocol::snapshot_ptr snapshot) {
    ++log->snapshots[name];
    log->last = std::move(snapshot);
    if (log->throws_left > 0) {
      --log->throws_left;
      throw std::runtime_error("a bug in a phase");
    }
  }};
}

protocol::event_recorder_actor::behavior_type event_sink(
    protocol::event_recorder_actor::pointer, std::vector<protocol::event_record>* events) {
  return {[events](protocol::event_record& e) { events->push_back(std::move(e)); }};
}

protocol::snapshot_ptr snapshot_with(const std::vector<std::string>& names) {
  auto claims = std::make_shared<protocol::object_map<kube::node_claim>>();
  for (const auto& name : names) {
    kube::node_claim c;
    c.metadata.name = name;
    c.metadata.uid = "uid-" + name;
    c.spec.node_class_ref = {"karpenter.proxmox.sinextra.dev", "ProxmoxNodeClass", "default"};
    (*claims)[name] = std::make_shared<const kube::node_claim>(std::move(c));
  }
  auto s = std::make_shared<protocol::cluster_snapshot>();
  s->synced = true;
  s->node_claims = claims;
  return s;
}

class NodeClaimFleetSupervision : public test::caf_test {
 protected:
  NodeClaimFleetSupervision() {
    ctx_.metrics = std::make_shared<obs::karpenter_metrics>(registry_);
    ctx_.events = sys().spawn(event_sink, &events_);
  }
  ~NodeClaimFleetSupervision() override {
    if (fleet_) caf::anon_send_exit(fleet_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(ctx_.events, caf::exit_reason::user_shutdown);
  }

  void start_fleet(restart_policy policy) {
    fleet_ = spawn_nodeclaim_fleet(
        sys(), ctx_,
        [this](caf::actor_system& s, const shared_context& ctx, const std::string& name) {
          contexts_.insert(ctx.get());
          return s.spawn(stand_in_claim, &log_, name, make_boundary("nodeclaim", ctx->metrics));
        },
        policy);
    sched().run();
  }

  void publish(const std::vector<std::string>& names) {
    caf::anon_send(fleet_, snapshot_with(names));
    sched().run();
  }

  void advance(std::chrono::milliseconds d) {
    sched().advance_time(d);
    sched().run();
  }

  double restarts() { return ctx_.metrics->actor_restarts.Add({{"actor", "nodeclaim"}}).Value(); }
  double failures() { return ctx_.metrics->actor_failures.Add({{"actor", "nodeclaim"}}).Value(); }
  int restart_events(const std::string& name) {
    int n = 0;
    for (const auto& e : events_) {
      if (e.name == name && e.reason == "LifecycleRestarted") ++n;
    }
    return n;
  }

  prometheus::Registry registry_;
  controller_context ctx_;
  std::vector<protocol::event_record> events_;
  claim_log log_;
  std::set<const controller_context*> contexts_;  // the contexts the fleet's actors got
  protocol::nodeclaim_fleet_actor fleet_;
};

// 4,000 claims' actors hold one context between them, not a copy each.
TEST_F(NodeClaimFleetSupervision, EveryActorTheFleetStartsGetsTheFleetsOneSharedContext) {
  start_fleet({1s, 8s});
  log_.throws_left = 1;  // and the restarted one too
  publish({"default-a", "default-b", "default-c"});
  advance(1s);
  EXPECT_EQ(log_.started["default-a"], 2);
  ASSERT_EQ(contexts_.size(), 1u);
  EXPECT_NE(*contexts_.begin(), nullptr);
  EXPECT_NE(*contexts_.begin(), &ctx_) << "the fleet's own copy, made once";
}

TEST_F(NodeClaimFleetSupervision,
       AClaimActorThatThrowsStartsAgainAfterTheBackoffWithAnEventAndAMetric) {
  start_fleet({1s, 8s});
  log_.throws_left = 1;
  publish({"default-a", "default-b"});
  EXPECT_EQ(log_.started["default-a"], 1);
  EXPECT_EQ(log_.started["default-b"], 1);
  EXPECT_EQ(failures(), 1) << "the exception is counted at the claim actor's boundary";
  EXPECT_EQ(restarts(), 1);
  ASSERT_EQ(restart_events("default-a"), 1);
  const auto& e = events_.back();
  EXPECT_EQ(e.kind, "NodeClaim");
  EXPECT_EQ(e.uid, "uid-default-a");
  EXPECT_EQ(e.type, "Warning");
  EXPECT_NE(e.message.find("1000 ms"), std::string::npos) << e.message;

  advance(999ms);
  EXPECT_EQ(log_.started["default-a"], 1) << "not before the 1 s backoff";
  advance(1ms);
  EXPECT_EQ(log_.started["default-a"], 2);
  EXPECT_EQ(log_.snapshots["default-a"], 2) << "the new actor gets the latest snapshot at once";
  EXPECT_EQ(log_.started["default-b"], 1) << "the other claim's actor never stopped";
  EXPECT_EQ(restarts(), 1);
}

TEST_F(NodeClaimFleetSupervision, TheBackoffDoublesUpToItsCapWhileTheActorKeepsFailing) {
  start_fleet({1s, 8s});
  log_.throws_left = 100;
  publish({"default-a"});
  int started = 1;
  for (auto expected : {1000ms, 2000ms, 4000ms, 8000ms, 8000ms}) {
    advance(expected - 1ms);
    EXPECT_EQ(log_.started["default-a"], started) << "before " << expected.count() << " ms";
    advance(1ms);
    EXPECT_EQ(log_.started["default-a"], ++started) << "after " << expected.count() << " ms";
  }
  EXPECT_EQ(restarts(), 6);
  EXPECT_EQ(restart_events("default-a"), 6);
}

TEST_F(NodeClaimFleetSupervision,
       AnActorThatRanHealthyLongerThanTheCapRestartsAfterTheShortestAgain) {
  start_fleet({1s, 8s});
  log_.throws_left = 2;
  publish({"default-a"});
  advance(1s);
  advance(2s);
  ASSERT_EQ(log_.started["default-a"], 3);
  advance(9s);  // healthy for longer than the 8 s cap
  log_.throws_left = 1;
  publish({"default-a"});
  advance(999ms);
  EXPECT_EQ(log_.started["default-a"], 3);
  advance(1ms);
  EXPECT_EQ(log_.started["default-a"], 4) << "back to 1 s, not 4 s";
}

TEST_F(NodeClaimFleetSupervision, AClaimDeletedWhileItsRestartWaitsIsNotStartedAgain) {
  start_fleet({1s, 8s});
  log_.throws_left = 1;
  publish({"default-a"});
  publish({});  // the claim is gone
  advance(5s);
  EXPECT_EQ(log_.started["default-a"], 1);
  EXPECT_EQ(restarts(), 1);
}

TEST_F(NodeClaimFleetSupervision, AnActorTheFleetStopsForAGoneClaimIsNotRestarted) {
  start_fleet({1s, 8s});
  publish({"default-a"});
  publish({});
  advance(30s);
  EXPECT_EQ(log_.started["default-a"], 1);
  EXPECT_EQ(restarts(), 0);
  EXPECT_EQ(restart_events("default-a"), 0);
  EXPECT_EQ(sys().registry().running(), 2u) << "only the fleet and the event sink run";
}

TEST_F(NodeClaimFleetSupervision, ASnapshotThatChangedOnlyPodsIsNotSentToTheClaimActors) {
  start_fleet({1s, 8s});
  auto first = snapshot_with({"default-a"});
  caf::anon_send(fleet_, first);
  sched().run();
  ASSERT_EQ(log_.snapshots["default-a"], 1);
  auto pods_changed = std::make_shared<protocol::cluster_snapshot>(*first);
  auto pods = std::make_shared<protocol::pod_model_map>();
  pods->insert_or_assign("default/web", protocol::translated(kube::pod{}));
  pods_changed->pods = pods;
  caf::anon_send(fleet_, protocol::snapshot_ptr(pods_changed));
  sched().run();
  EXPECT_EQ(log_.snapshots["default-a"], 1) << "claim actors never read pods";
  auto nodes_changed = std::make_shared<protocol::cluster_snapshot>(*pods_changed);
  nodes_changed->nodes = std::make_shared<protocol::object_map<kube::node>>();
  caf::anon_send(fleet_, protocol::snapshot_ptr(nodes_changed));
  sched().run();
  EXPECT_EQ(log_.snapshots["default-a"], 2) << "a change to the Nodes is sent";
}

TEST_F(NodeClaimFleetSupervision, TheSnapshotClaimActorsKeepHoldsNoPod) {
  start_fleet({1s, 8s});
  auto model = model::share(model::pod{});
  std::weak_ptr<const model::pod> model_seen = model;
  auto with_pods = std::make_shared<protocol::cluster_snapshot>(*snapshot_with({"default-a"}));
  auto pods = std::make_shared<protocol::pod_model_map>();
  pods->insert_or_assign("default/web", protocol::pod_model{"1", model, nullptr});
  with_pods->pods = pods;
  model.reset();
  pods.reset();
  caf::anon_send(fleet_, protocol::snapshot_ptr(std::move(with_pods)));
  sched().run();
  ASSERT_EQ(log_.snapshots["default-a"], 1);
  ASSERT_TRUE(log_.last);
  EXPECT_TRUE(log_.last->pods == nullptr || log_.last->pods->empty());
  // Pod churn changes nothing the claim actors read, so they keep this snapshot for ever: the
  // pods it was taken with must not live on through it.
  EXPECT_TRUE(model_seen.expired()) << "the pod is kept alive";
}

}  // namespace
}  // namespace kp::actors::nodeclaim
