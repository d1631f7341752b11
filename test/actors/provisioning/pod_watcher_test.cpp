// Which pods count as provisionable (karpenter-core.md 3.2), as a table, and the pod_watcher
// actor on virtual time: it reports new provisionable UIDs to the batcher, repeats a pod only
// after the re-trigger interval, and sets the queue-depth gauge.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <vector>

#include <prometheus/registry.h>
#include <caf/all.hpp>

#include "actors/provisioning/pod_watcher.hpp"
#include "actors/provisioning/provisionable.hpp"
#include "test/actors/caf_test_fixture.hpp"

namespace kp::actors::provisioning {
namespace {

using namespace std::chrono_literals;

kube::pod unschedulable_pod(const std::string& name) {
  kube::pod p;
  p.metadata.name = name;
  p.metadata.namespace_ = "default";
  p.metadata.uid = "uid-" + name;
  p.status.phase = "Pending";
  kube::condition c;
  c.type = "PodScheduled";
  c.status = "False";
  c.reason = "Unschedulable";
  p.status.conditions.push_back(c);
  return p;
}

kube::owner_reference owner(const std::string& kind) {
  kube::owner_reference o;
  o.kind = kind;
  o.name = "x";
  o.uid = "owner-uid";
  o.controller = true;
  return o;
}

protocol::snapshot_ptr snapshot_of(const std::vector<kube::pod>& pods,
                                   const std::vector<std::string>& nodes = {}) {
  auto snap = std::make_shared<protocol::cluster_snapshot>();
  snap->synced = true;
  auto pm = std::make_shared<protocol::object_map<kube::pod>>();
  for (const auto& p : pods) (*pm)[protocol::object_key_of(p)] = std::make_shared<kube::pod>(p);
  snap->pods = protocol::pod_models_of(*pm);
  auto nm = std::make_shared<protocol::object_map<kube::node>>();
  for (const auto& n : nodes) {
    kube::node node;
    node.metadata.name = n;
    (*nm)[n] = std::make_shared<kube::node>(node);
  }
  snap->nodes = nm;
  return snap;
}

struct provisionable_case {
  const char* what;
  std::function<void(kube::pod&)> change;
  bool expected;
};

TEST(ProvisionablePods, FollowKarpentersDefinition) {
  const std::vector<provisionable_case> cases = {
      {"pending and Unschedulable", [](kube::pod&) {}, true},
      {"phase not reported yet", [](kube::pod& p) { p.status.phase.clear(); }, true},
      {"no PodScheduled condition (scheduler has not tried)",
       [](kube::pod& p) { p.status.conditions.clear(); }, false},
      {"PodScheduled=False for another reason",
       [](kube::pod& p) { p.status.conditions[0].reason = "SchedulerError"; }, false},
      {"PodScheduled=True", [](kube::pod& p) { p.status.conditions[0].status = "True"; }, false},
      {"bound to a node", [](kube::pod& p) { p.spec.node_name = "n1"; }, false},
      {"Running", [](kube::pod& p) { p.status.phase = "Running"; }, false},
      {"Succeeded", [](kube::pod& p) { p.status.phase = "Succeeded"; }, false},
      {"Failed", [](kube::pod& p) { p.status.phase = "Failed"; }, false},
      {"terminating", [](kube::pod& p) { p.metadata.deletion_timestamp = "2026-01-01T00:00:00Z"; },
       false},
      {"owned by a DaemonSet",
       [](kube::pod& p) { p.metadata.owner_references.push_back(owner("DaemonSet")); }, false},
      {"a mirror pod (owned by a Node)",
       [](kube::pod& p) { p.metadata.owner_references.push_back(owner("Node")); }, false},
      {"owned by a ReplicaSet",
       [](kube::pod& p) { p.metadata.owner_references.push_back(owner("ReplicaSet")); }, true},
      {"nominated to a live node (preempting)",
       [](kube::pod& p) { p.status.nominated_node_name = "live"; }, false},
      {"nominated to a node that is gone",
       [](kube::pod& p) { p.status.nominated_node_name = "gone"; }, true},
  };
  for (const auto& c : cases) {
    auto pod = unschedulable_pod("p");
    c.change(pod);
    auto snap = snapshot_of({pod}, {"live"});
    EXPECT_EQ(is_provisionable(*protocol::translated(pod).pod, *snap), c.expected) << c.what;
    EXPECT_EQ(provisionable_pods(*snap).size(), c.expected ? 1u : 0u) << c.what;
  }
}

struct reports {
  std::vector<std::vector<std::string>> sent;
};

protocol::batcher_actor::behavior_type recording_batcher(protocol::batcher_actor::pointer,
                                                         std::shared_ptr<reports> out) {
  return {[out](protocol::pods_pending& p) { out->sent.push_back(p.uids); }};
}

class PodWatcherTest : public kp::test::caf_test {
 protected:
  PodWatcherTest() {
    ctx_.metrics = std::make_shared<obs::karpenter_metrics>(registry_);
    ctx_.wall_clock_ms = [this] { return now_ms_; };
    auto batcher = sys().spawn(recording_batcher, out_);
    watcher_ = spawn_pod_watcher(sys(), ctx_, batcher, 10s);
    sched().run();
  }
  ~PodWatcherTest() override {
    caf::anon_send_exit(watcher_, caf::exit_reason::user_shutdown);
    sched().run();
  }
  void publish(protocol::snapshot_ptr snap) {
    caf::anon_send(watcher_, std::move(snap));
    sched().run();
  }
  void advance(std::chrono::milliseconds d) {
    now_ms_ += d.count();
    sched().advance_time(d);
    sched().run();
  }
  double depth() {
    return ctx_.metrics->scheduler_queue_depth
        .Add({{"controller", "provisioner"}, {"scheduling_id", ""}})
        .Value();
  }

  prometheus::Registry registry_;
  controller_context ctx_;
  std::int64_t now_ms_ = 5'000'000;
  std::shared_ptr<reports> out_ = std::make_shared<reports>();
  protocol::pod_watcher_actor watcher_;
};

TEST_F(PodWatcherTest, ReportsOnlyProvisionablePodsAndSetsTheQueueDepth) {
  auto bound = unschedulable_pod("bound");
  bound.spec.node_name = "n1";
  publish(snapshot_of({unschedulable_pod("a"), unschedulable_pod("b"), bound}));
  ASSERT_EQ(out_->sent.size(), 1u);
  EXPECT_EQ(out_->sent[0], (std::vector<std::string>{"uid-a", "uid-b"}));
  EXPECT_EQ(depth(), 2.0);
}

TEST_F(PodWatcherTest, RepeatsAPodOnlyAfterTheRetriggerInterval) {
  publish(snapshot_of({unschedulable_pod("a")}));
  advance(3s);
  publish(snapshot_of({unschedulable_pod("a"), unschedulable_pod("b")}));
  ASSERT_EQ(out_->sent.size(), 2u);
  EXPECT_EQ(out_->sent[1], (std::vector<std::string>{"uid-b"}));
  // No new snapshot: the watcher's own timer looks again and repeats "a" 10 s after it was
  // first reported.
  advance(7s);
  ASSERT_EQ(out_->sent.size(), 3u);
  EXPECT_EQ(out_->sent[2], (std::vector<std::string>{"uid-a"}));
}

TEST_F(PodWatcherTest, APodThatStopsCountingIsForgottenAndReportedAtOnceWhenItCountsAgain) {
  publish(snapshot_of({unschedulable_pod("a"), unschedulable_pod("b")}));
  auto bound = unschedulable_pod("a");
  bound.spec.node_name = "n1";
  advance(1s);
  publish(snapshot_of({bound, unschedulable_pod("b")}));
  advance(1s);
  // "a" counts again well within the retrigger interval: it was forgotten, so it is new; "b"
  // was reported 2 s ago and waits.
  publish(snapshot_of({unschedulable_pod("a"), unschedulable_pod("b")}));
  ASSERT_EQ(out_->sent.size(), 2u);
  EXPECT_EQ(out_->sent[1], (std::vector<std::string>{"uid-a"}));
}

TEST_F(PodWatcherTest, SendsNothingWhenNoPodIsProvisionableAndClearsTheGauge) {
  publish(snapshot_of({unschedulable_pod("a")}));
  EXPECT_EQ(depth(), 1.0);
  auto done = unschedulable_pod("a");
  done.spec.node_name = "n1";
  publish(snapshot_of({done}));
  EXPECT_EQ(out_->sent.size(), 1u);
  EXPECT_EQ(depth(), 0.0);
  advance(30s);
  EXPECT_EQ(out_->sent.size(), 1u);
}

}  // namespace
}  // namespace kp::actors::provisioning
