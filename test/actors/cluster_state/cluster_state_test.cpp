// cluster_state on CAF's test coordinator (virtual time, every message run on the test thread):
// coalescing, copy-on-write sharing between snapshots, nothing before synced, late and dead
// subscribers, deletes, the snapshot request and the pod metrics.
#include "actors/cluster_state/cluster_state.hpp"

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <prometheus/registry.h>

#include "actors/cluster_state/kept_fields.hpp"
#include "actors/cluster_state/pod_state_series.hpp"
#include "actors/cluster_state/shared_pod_parts.hpp"
#include "observability/karpenter_metrics.hpp"
#include "test/actors/caf_test_fixture.hpp"

namespace kp::actors::cluster_state {
namespace {

using namespace std::chrono_literals;
using namespace kp::protocol;

struct inbox {
  std::vector<snapshot_ptr> snapshots;
};

snapshot_listener::behavior_type recorder(snapshot_listener::pointer, std::shared_ptr<inbox> into) {
  return {[into](snapshot_ptr s) { into->snapshots.push_back(std::move(s)); }};
}

std::shared_ptr<const kube::pod> make_pod(const std::string& ns, const std::string& name,
                                          const std::string& node = "",
                                          const std::string& phase = "Pending") {
  auto p = std::make_shared<kube::pod>();
  p->metadata.namespace_ = ns;
  p->metadata.name = name;
  p->spec.node_name = node;
  p->status.phase = phase;
  return p;
}

std::shared_ptr<const kube::node> make_node(const std::string& name, const std::string& nodepool,
                                            const std::string& zone) {
  auto n = std::make_shared<kube::node>();
  n->metadata.name = name;
  n->metadata.labels["karpenter.sh/nodepool"] = nodepool;
  n->metadata.labels["topology.kubernetes.io/zone"] = zone;
  return n;
}

template <class T>
objects_replaced<T> empty_list() {
  return {std::make_shared<const object_map<T>>()};
}

class ClusterState : public test::caf_test {
 protected:
  void start(std::shared_ptr<obs::karpenter_metrics> metrics = nullptr) {
    cluster_state_options o;
    o.publish_interval = 50ms;
    o.wall_clock_ms = [] { return std::int64_t{1'700'000'000'000}; };
    cs_ = spawn_cluster_state(sys(), std::move(metrics), o);
    sched().run();
  }

  std::shared_ptr<inbox> subscribe() {
    auto into = std::make_shared<inbox>();
    auto listener = sys().spawn(recorder, into);
    caf::anon_send(cs_, subscribe_atom::value, listener);
    sched().run();
    listeners_.push_back(listener);
    return into;
  }

  // Every kind listed except (optionally) secrets.
  void list_all_but_secrets() {
    caf::anon_send(cs_, empty_list<kube::pod>());
    caf::anon_send(cs_, empty_list<kube::node>());
    caf::anon_send(cs_, empty_list<kube::node_claim>());
    caf::anon_send(cs_, empty_list<kube::node_pool>());
    caf::anon_send(cs_, empty_list<kube::proxmox_node_class>());
    caf::anon_send(cs_, empty_list<kube::proxmox_template>());
    caf::anon_send(cs_, empty_list<kube::proxmox_unmanaged_template>());
    caf::anon_send(cs_, empty_list<kube::daemon_set>());
    caf::anon_send(cs_, empty_list<kube::pod_disruption_budget>());
    caf::anon_send(cs_, empty_list<kube::volume_attachment>());
    sched().run();
  }
  void sync() {
    list_all_but_secrets();
    caf::anon_send(cs_, empty_list<kube::secret>());
    sched().run();
  }

  void add(std::shared_ptr<const kube::pod> p) {
    caf::anon_send(cs_, object_changed<kube::pod>{false, std::move(p)});
  }
  void remove(std::shared_ptr<const kube::pod> p) {
    caf::anon_send(cs_, object_changed<kube::pod>{true, std::move(p)});
  }

  // Lets the publication timer fire and runs what it sends.
  void pass(caf::timespan t) {
    sched().run();
    sched().advance_time(t);
    sched().run();
  }

  template <class Reply, class Handle, class... Ts>
  Reply ask(const Handle& to, Ts... xs) {
    caf::scoped_actor self{sys()};
    self->send(to, xs...);
    sched().run();
    Reply out{};
    bool got = false;
    self->receive([&](Reply& r) { out = std::move(r), got = true; }, caf::after(0s) >> [] {});
    EXPECT_TRUE(got) << "no reply";
    return out;
  }

  cluster_state_actor cs_;
  std::vector<snapshot_listener> listeners_;
};

TEST_F(ClusterState, nothingIsPublishedBeforeEveryKindHasBeenListedOnce) {
  start();
  auto in = subscribe();
  list_all_but_secrets();
  add(make_pod("default", "a"));
  pass(1s);
  EXPECT_TRUE(in->snapshots.empty());
  auto asked = ask<snapshot_ptr>(cs_, snapshot_atom::value);
  ASSERT_TRUE(asked);
  EXPECT_FALSE(asked->synced);
  EXPECT_EQ(asked->generation, 0u);
  EXPECT_TRUE(asked->pods->empty());

  caf::anon_send(cs_, empty_list<kube::secret>());
  sched().run();
  ASSERT_EQ(in->snapshots.size(), 1u);
  EXPECT_TRUE(in->snapshots[0]->synced);
  EXPECT_EQ(in->snapshots[0]->pods->size(), 1u);  // deltas before sync are kept, not lost
  EXPECT_EQ(in->snapshots[0]->taken_unix_ms, 1'700'000'000'000);
}

TEST_F(ClusterState, aHundredDeltasWithinOneIntervalBecomeOneSnapshotHoldingThemAll) {
  start();
  auto in = subscribe();
  sync();
  ASSERT_EQ(in->snapshots.size(), 1u);
  for (int i = 0; i < 100; ++i) add(make_pod("default", "p" + std::to_string(i)));
  sched().run();
  EXPECT_EQ(in->snapshots.size(), 1u);  // still inside the interval of the first publication
  sched().advance_time(50ms);
  sched().run();
  ASSERT_EQ(in->snapshots.size(), 2u);
  EXPECT_EQ(in->snapshots[1]->pods->size(), 100u);
  EXPECT_GT(in->snapshots[1]->generation, in->snapshots[0]->generation);
  pass(1s);
  EXPECT_EQ(in->snapshots.size(), 2u);  // nothing new, nothing published
}

TEST_F(ClusterState, theFirstDeltaAfterAQuietIntervalIsPublishedAtOnce) {
  start();
  auto in = subscribe();
  sync();
  pass(1s);
  ASSERT_EQ(in->snapshots.size(), 1u);
  add(make_pod("default", "quiet"));
  sched().run();  // no virtual time passes
  ASSERT_EQ(in->snapshots.size(), 2u);
  EXPECT_NE(cluster_snapshot::find(in->snapshots[1]->pods, "default/quiet"), nullptr);
}

TEST_F(ClusterState, kindsThatDidNotChangeShareTheirMapWithThePreviousSnapshot) {
  start();
  auto in = subscribe();
  sync();
  add(make_pod("default", "a"));
  pass(50ms);
  ASSERT_EQ(in->snapshots.size(), 2u);
  const auto& before = *in->snapshots[0];
  const auto& after = *in->snapshots[1];
  EXPECT_NE(before.pods, after.pods);
  EXPECT_TRUE(before.pods->empty());  // the published map was not written
  EXPECT_EQ(after.pods->size(), 1u);
  EXPECT_EQ(before.nodes, after.nodes);
  EXPECT_EQ(before.node_claims, after.node_claims);
  EXPECT_EQ(before.node_pools, after.node_pools);
  EXPECT_EQ(before.node_classes, after.node_classes);
  EXPECT_EQ(before.templates, after.templates);
  EXPECT_EQ(before.unmanaged_templates, after.unmanaged_templates);
  EXPECT_EQ(before.daemon_sets, after.daemon_sets);
  EXPECT_EQ(before.pod_disruption_budgets, after.pod_disruption_budgets);
  EXPECT_EQ(before.volume_attachments, after.volume_attachments);
  EXPECT_EQ(before.bootstrap_tokens, after.bootstrap_tokens);
  // Unchanged objects are shared too, not copied.
  add(make_pod("default", "b"));
  pass(50ms);
  ASSERT_EQ(in->snapshots.size(), 3u);
  EXPECT_EQ(in->snapshots[2]->pods->at("default/a").pod, after.pods->at("default/a").pod);
}

// A pod object as the API serves it: with a uid and a resourceVersion.
std::shared_ptr<const kube::pod> versioned_pod(const std::string& name, const std::string& rv,
                                               const std::string& node = "") {
  auto p = std::make_shared<kube::pod>(*make_pod("default", name, node, "Running"));
  p->metadata.uid = "uid-" + name;
  p->metadata.resource_version = rv;
  return p;
}

template <class... Pods>
std::shared_ptr<const object_map<kube::pod>> pod_page(const Pods&... pods) {
  auto out = std::make_shared<object_map<kube::pod>>();
  (out->try_emplace(object_key_of(*pods), pods), ...);
  return out;
}

TEST_F(ClusterState, eachPodObjectIsTranslatedOnceAndHeldOnlyAsItsModel) {
  start();
  auto in = subscribe();
  sync();
  auto a = versioned_pod("a", "10", "node-1");
  std::weak_ptr<const kube::pod> a_object = a;
  add(a);
  add(versioned_pod("b", "11", "node-1"));
  pass(50ms);
  ASSERT_EQ(in->snapshots.size(), 2u);
  const auto first = in->snapshots[1];
  ASSERT_EQ(first->pods->size(), 2u);
  const auto& model_a = first->pods->at("default/a");
  EXPECT_TRUE(model_a.valid());
  EXPECT_EQ(model_a.resource_version, "10");
  EXPECT_EQ(model_a.pod->name, "a");
  EXPECT_EQ(model_a.pod->node_name, "node-1");
  a.reset();
  EXPECT_TRUE(a_object.expired()) << "the API object outlives its translation";

  // b changes, c arrives, a is deleted: only the new objects are translated.
  add(versioned_pod("b", "12", "node-2"));
  add(versioned_pod("c", "13"));
  remove(versioned_pod("a", "14", "node-1"));
  pass(50ms);
  ASSERT_EQ(in->snapshots.size(), 3u);
  const auto second = in->snapshots[2];
  EXPECT_FALSE(second->pods->contains("default/a"));
  EXPECT_EQ(second->pods->at("default/b").pod->node_name, "node-2");
  EXPECT_TRUE(second->pods->contains("default/c"));
  EXPECT_EQ(first->pods->size(), 2u);  // the published map was not written
}

TEST_F(ClusterState, aRelistInPagesKeepsTheModelsOfObjectsItRepeatsAndTranslatesTheRest) {
  start();
  auto in = subscribe();
  sync();
  add(versioned_pod("b", "20", "node-1"));
  add(versioned_pod("c", "21", "node-1"));
  pass(50ms);
  ASSERT_EQ(in->snapshots.size(), 2u);
  const auto before = in->snapshots[1];
  // A relist in two pages: b repeated, c changed, d new. Nothing is published before the last.
  caf::anon_send(cs_, objects_replaced<kube::pod>{
                          pod_page(versioned_pod("b", "20", "node-1"), versioned_pod("c", "22")),
                          true, false});
  pass(50ms);
  EXPECT_EQ(in->snapshots.size(), 2u) << "a list is published once complete";
  caf::anon_send(cs_, objects_replaced<kube::pod>{pod_page(versioned_pod("d", "23")), false, true});
  pass(50ms);
  ASSERT_EQ(in->snapshots.size(), 3u);
  const auto after = in->snapshots[2];
  ASSERT_EQ(after->pods->size(), 3u);
  EXPECT_EQ(after->pods->at("default/b").pod, before->pods->at("default/b").pod);
  EXPECT_NE(after->pods->at("default/c").pod, before->pods->at("default/c").pod);
  EXPECT_EQ(after->pods->at("default/c").pod->node_name, "");
  EXPECT_EQ(after->pods->at("default/d").pod->name, "d");
  // A pod of the same name and version but another uid is another pod.
  auto other_b = std::make_shared<kube::pod>(*versioned_pod("b", "20", "node-1"));
  other_b->metadata.uid = "uid-b-again";
  caf::anon_send(cs_, objects_replaced<kube::pod>{pod_page(other_b)});
  pass(50ms);
  ASSERT_EQ(in->snapshots.size(), 4u);
  EXPECT_EQ(in->snapshots[3]->pods->at("default/b").pod->uid, "uid-b-again");
  EXPECT_EQ(in->snapshots[3]->pods->size(), 1u);
}

TEST_F(ClusterState, aPodWhoseObjectCannotBeTranslatedKeepsItsNameAndState) {
  start();
  auto in = subscribe();
  sync();
  auto bad = std::make_shared<kube::pod>(*versioned_pod("bad", "30", "node-1"));
  kube::container c;
  c.name = "main";
  c.resources.requests = {{"cpu", "lots"}};
  bad->spec.containers.push_back(c);
  bad->spec.priority_class_name = "system-node-critical";
  add(bad);
  pass(50ms);
  ASSERT_EQ(in->snapshots.size(), 2u);
  const auto& entry = in->snapshots[1]->pods->at("default/bad");
  ASSERT_FALSE(entry.valid());
  EXPECT_NE(entry.invalid->message.find("bad"), std::string::npos);
  EXPECT_EQ(entry.pod->uid, "uid-bad");
  EXPECT_EQ(entry.pod->node_name, "node-1");
  EXPECT_EQ(entry.pod->priority_class_name, "system-node-critical");
}

TEST_F(ClusterState, aLateSubscriberGetsTheLatestSnapshotAtOnce) {
  start();
  auto early = subscribe();
  sync();
  add(make_pod("default", "a"));
  pass(50ms);
  ASSERT_EQ(early->snapshots.size(), 2u);
  auto late = subscribe();
  ASSERT_EQ(late->snapshots.size(), 1u);
  EXPECT_EQ(late->snapshots[0], early->snapshots.back());
  auto asked = ask<snapshot_ptr>(cs_, snapshot_atom::value);
  EXPECT_EQ(asked, early->snapshots.back());
}

TEST_F(ClusterState, aDeletedObjectIsGoneFromTheNextSnapshot) {
  start();
  auto in = subscribe();
  sync();
  auto a = make_pod("default", "a");
  add(a);
  add(make_pod("kube-system", "b"));
  pass(50ms);
  ASSERT_EQ(in->snapshots.back()->pods->size(), 2u);
  remove(a);
  pass(50ms);
  const auto& pods = *in->snapshots.back()->pods;
  EXPECT_EQ(pods.size(), 1u);
  EXPECT_EQ(pods.count("default/a"), 0u);
  EXPECT_EQ(pods.count("kube-system/b"), 1u);
  // A re-list without an object removes it as well.
  caf::anon_send(cs_, empty_list<kube::pod>());
  pass(50ms);
  EXPECT_TRUE(in->snapshots.back()->pods->empty());
}

TEST_F(ClusterState, aDeadSubscriberIsDropped) {
  start();
  auto keep = subscribe();
  auto gone = subscribe();
  auto probe = caf::actor_cast<cluster_state_probe>(cs_);
  EXPECT_EQ(ask<std::size_t>(probe, subscribers_atom::value), 2u);
  caf::anon_send_exit(listeners_[1], caf::exit_reason::user_shutdown);
  sched().run();
  EXPECT_EQ(ask<std::size_t>(probe, subscribers_atom::value), 1u);
  sync();
  EXPECT_EQ(keep->snapshots.size(), 1u);
  EXPECT_TRUE(gone->snapshots.empty());
}

TEST_F(ClusterState, subscribingTwiceDeliversEachSnapshotOnce) {
  start();
  auto in = std::make_shared<inbox>();
  auto listener = sys().spawn(recorder, in);
  caf::anon_send(cs_, subscribe_atom::value, listener);
  caf::anon_send(cs_, subscribe_atom::value, listener);
  sched().run();
  sync();
  EXPECT_EQ(in->snapshots.size(), 1u);
}

// Reads one gauge family's series from the registry.
std::vector<prometheus::ClientMetric> series(prometheus::Registry& r, const std::string& name) {
  for (auto& family : r.Collect())
    if (family.name == name) return family.metric;
  return {};
}

// karpenter_pods_state is made when collected, outside the registry.
std::vector<prometheus::ClientMetric> series(const obs::object_gauges& family) {
  return family.Collect().at(0).metric;
}

std::string label(const prometheus::ClientMetric& m, const std::string& name) {
  for (const auto& l : m.label)
    if (l.name == name) return l.value;
  return "<none>";
}

TEST_F(ClusterState, podSeriesFollowThePodsAndTheirNodesLabels) {
  prometheus::Registry registry;
  auto metrics = std::make_shared<obs::karpenter_metrics>(registry);
  start(metrics);
  auto in = subscribe();
  ASSERT_EQ(series(registry, "karpenter_cluster_state_synced").size(), 1u);
  EXPECT_EQ(series(registry, "karpenter_cluster_state_synced")[0].gauge.value, 0);
  sync();
  EXPECT_EQ(series(registry, "karpenter_cluster_state_synced")[0].gauge.value, 1);

  caf::anon_send(cs_, object_changed<kube::node>{false, make_node("n1", "general", "pve-a")});
  add(make_pod("default", "web", "n1", "Running"));
  add(make_pod("default", "pending"));
  pass(50ms);
  auto pods = series(*metrics->pods_state);
  ASSERT_EQ(pods.size(), 2u);
  for (const auto& m : pods) {
    if (label(m, "name") == "web") {
      EXPECT_EQ(label(m, "node"), "n1");
      EXPECT_EQ(label(m, "nodepool"), "general");
      EXPECT_EQ(label(m, "zone"), "pve-a");
      EXPECT_EQ(label(m, "phase"), "Running");
      EXPECT_EQ(label(m, "scheduled"), "true");
      EXPECT_EQ(label(m, "namespace"), "default");
    } else {
      EXPECT_EQ(label(m, "scheduled"), "false");
      EXPECT_EQ(label(m, "phase"), "Pending");
    }
  }
  EXPECT_EQ(series(registry, "karpenter_cluster_state_node_count")[0].gauge.value, 1);

  // The node moves zone: the pod's series is replaced, not duplicated.
  caf::anon_send(cs_, object_changed<kube::node>{false, make_node("n1", "general", "pve-b")});
  pass(50ms);
  pods = series(*metrics->pods_state);
  ASSERT_EQ(pods.size(), 2u);
  for (const auto& m : pods)
    if (label(m, "name") == "web") {
      EXPECT_EQ(label(m, "zone"), "pve-b");
    }

  remove(make_pod("default", "pending"));
  pass(50ms);
  pods = series(*metrics->pods_state);
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(label(pods[0], "name"), "web");
  caf::anon_send(cs_, empty_list<kube::pod>());
  pass(50ms);
  EXPECT_TRUE(series(*metrics->pods_state).empty());
  auto depth = series(registry, "karpenter_proxmox_actor_queue_depth");
  ASSERT_EQ(depth.size(), 1u);
  EXPECT_EQ(depth[0].gauge.value, 0);  // everything published
}

// The figure for the report: 10,000 pod deltas applied and published as one snapshot.
void bench(test::caf_test& t, caf::actor_system& sys, caf::scheduler::test_coordinator& sched,
           std::shared_ptr<obs::karpenter_metrics> metrics, const char* what) {
  (void)t;
  cluster_state_options o;
  o.publish_interval = 50ms;
  auto cs = spawn_cluster_state(sys, metrics, o);
  auto in = std::make_shared<inbox>();
  caf::anon_send(cs, subscribe_atom::value, sys.spawn(recorder, in));
  caf::anon_send(cs, empty_list<kube::pod>());
  caf::anon_send(cs, empty_list<kube::node>());
  caf::anon_send(cs, empty_list<kube::node_claim>());
  caf::anon_send(cs, empty_list<kube::node_pool>());
  caf::anon_send(cs, empty_list<kube::proxmox_node_class>());
  caf::anon_send(cs, empty_list<kube::proxmox_template>());
  caf::anon_send(cs, empty_list<kube::proxmox_unmanaged_template>());
  caf::anon_send(cs, empty_list<kube::daemon_set>());
  caf::anon_send(cs, empty_list<kube::pod_disruption_budget>());
  caf::anon_send(cs, empty_list<kube::volume_attachment>());
  caf::anon_send(cs, empty_list<kube::secret>());
  sched.run();
  std::vector<std::shared_ptr<const kube::pod>> pods;
  for (int i = 0; i < 10000; ++i)
    pods.push_back(make_pod("ns-" + std::to_string(i % 50), "pod-" + std::to_string(i),
                            "node-" + std::to_string(i % 100), "Running"));
  auto start = std::chrono::steady_clock::now();
  for (auto& p : pods) caf::anon_send(cs, object_changed<kube::pod>{false, p});
  sched.run();
  sched.advance_time(50ms);
  sched.run();
  auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(in->snapshots.empty());
  EXPECT_EQ(in->snapshots.back()->pods->size(), 10000u);
  std::printf("[ figure ] cluster_state %s: 10,000 pod deltas applied and published in %.1f ms\n",
              what, std::chrono::duration<double, std::milli>(took).count());
  caf::anon_send_exit(cs, caf::exit_reason::user_shutdown);
  sched.run();
}

TEST_F(ClusterState, tenThousandPodDeltasAreAppliedAndPublishedAsOneSnapshot) {
  bench(*this, sys(), sched(), nullptr, "without metrics");
  prometheus::Registry registry;
  bench(*this, sys(), sched(), std::make_shared<obs::karpenter_metrics>(registry),
        "with pod metrics");
}

kube::pod pod_of_controller(const std::string& name, const std::string& controller_uid) {
  kube::pod p;
  p.metadata.name = name;
  p.metadata.namespace_ = "default";
  if (!controller_uid.empty())
    p.metadata.owner_references = {{"apps/v1", "ReplicaSet", "web-1", controller_uid, true, true}};
  kube::container c;
  c.name = "app";
  c.resources.requests = {{"cpu", "100m"}};
  p.spec.containers = {c};
  p.spec.tolerations = {{"node.kubernetes.io/not-ready", "Exists", "", "NoExecute", 300}};
  p.spec.volumes = {{"data", "claim", false, false, false}};
  kube::affinity spread;
  spread.pod_anti_affinity.emplace().required.push_back({{}, {}, {}, "kubernetes.io/hostname"});
  p.spec.affinity = spread;
  return p;
}

TEST(SharedPodParts, EqualPartsAreSharedAcrossPodsAndControllersAndADifferingPartIsKept) {
  shared_pod_parts parts;
  auto a = pod_of_controller("a", "rs-1");
  auto b = pod_of_controller("b", "rs-1");
  parts.share(a);
  parts.share(b);
  EXPECT_TRUE(b.spec.containers.shares_items_with(a.spec.containers));
  EXPECT_TRUE(b.spec.tolerations.shares_items_with(a.spec.tolerations));
  EXPECT_TRUE(b.spec.volumes.shares_items_with(a.spec.volumes));
  EXPECT_TRUE(b.metadata.owner_references.shares_items_with(a.metadata.owner_references));
  EXPECT_TRUE(b.spec.affinity.shares_value_with(a.spec.affinity));

  // A pod whose containers differ keeps its own; its equal tolerations are still shared.
  auto c = pod_of_controller("c", "rs-1");
  c.spec.containers[0].resources.requests["cpu"] = "200m";
  parts.share(c);
  EXPECT_FALSE(c.spec.containers.shares_items_with(a.spec.containers));
  // Read through const: a non-const operator[] would give `a` its own copy first.
  EXPECT_EQ(std::as_const(c).spec.containers[0].resources.requests.at("cpu"), "200m");
  EXPECT_TRUE(c.spec.tolerations.shares_items_with(a.spec.tolerations));
  EXPECT_EQ(std::as_const(a).spec.containers[0].resources.requests.at("cpu"), "100m");

  // Another controller's equal parts and those of a pod without a controller are shared too;
  // owner references that differ are not.
  auto other = pod_of_controller("d", "rs-2");
  auto orphan = pod_of_controller("e", "");
  parts.share(other);
  parts.share(orphan);
  EXPECT_TRUE(other.spec.tolerations.shares_items_with(a.spec.tolerations));
  EXPECT_TRUE(orphan.spec.containers.shares_items_with(a.spec.containers));
  EXPECT_FALSE(other.metadata.owner_references.shares_items_with(a.metadata.owner_references));
  EXPECT_TRUE(orphan.metadata.owner_references.empty());
  // Two owner references, two container lists, one each of tolerations, volumes and affinity.
  EXPECT_EQ(parts.held(), 7u);

  // Changing a pod that shares its parts leaves the others alone.
  b.spec.tolerations.push_back({"dedicated", "Equal", "infra", "NoSchedule", {}});
  EXPECT_EQ(a.spec.tolerations.size(), 1u);
  EXPECT_EQ(b.spec.tolerations.size(), 2u);
}

kube::pod pod_with_cpu(const std::string& name, int cpu_m) {
  auto p = pod_of_controller(name, "rs-" + name);
  p.spec.containers[0].resources.requests["cpu"] = std::to_string(cpu_m) + "m";
  return p;
}

TEST(SharedPodParts, PartsNoPodHoldsAnyMoreAreDroppedByALaterSweep) {
  shared_pod_parts parts;
  {
    std::vector<kube::pod> gone;
    for (int i = 0; i < 1024; ++i) gone.push_back(pod_with_cpu("p" + std::to_string(i), i));
    for (auto& p : gone) parts.share(p);
  }
  // The 1,024th part of a kind triggered a sweep while its pods were alive; once they are gone,
  // the next sweep (at twice the size) drops them.
  std::vector<kube::pod> alive;
  for (int i = 0; i < 2048; ++i) alive.push_back(pod_with_cpu("q" + std::to_string(i), 5000 + i));
  for (auto& p : alive) parts.share(p);
  // 2,048 owner references and container lists, one each of tolerations, volumes and affinity
  // (3,072 of each if the gone ones were kept).
  EXPECT_EQ(parts.held(), 2 * 2048u + 3u);
  auto again = pod_with_cpu("again", 5007);
  parts.share(again);
  EXPECT_TRUE(again.spec.containers.shares_items_with(alive[7].spec.containers));
}

TEST(KeptFields, APodKeepsWhatReadersUseAndDropsTheRest) {
  kube::pod p;
  p.metadata.name = "web";
  p.status.phase = "Running";
  p.status.start_time = "2026-01-01T00:00:00Z";
  p.status.conditions = {
      {"Ready", "True", "", "", "2026-01-01T00:00:00Z", "", 0},
      {"PodScheduled", "False", "Unschedulable", "0/3 nodes", "2026-01-01T00:00:00Z", "", 0}};
  kube::container c;
  c.name = "app";
  c.image = "registry.k8s.io/pause:3.9";
  c.resources.requests = {{"cpu", "100m"}};
  c.ports = {{"http", 8080, 0, "", "TCP"}, {"dns", 53, 53, "", "UDP"}};
  p.spec.containers = {c};
  p.spec.init_containers = {c};
  keep_used_fields(p);
  ASSERT_EQ(p.status.conditions.size(), 1u);
  EXPECT_EQ(p.status.conditions[0].type, "PodScheduled");
  EXPECT_EQ(p.status.conditions[0].status, "False");
  EXPECT_EQ(p.status.conditions[0].reason, "Unschedulable");
  EXPECT_TRUE(p.status.conditions[0].message.empty());
  EXPECT_EQ(p.status.phase, "Running");
  EXPECT_EQ(p.status.start_time, "2026-01-01T00:00:00Z");  // drain reads it
  for (const auto* list : {&p.spec.containers, &p.spec.init_containers}) {
    ASSERT_EQ(list->size(), 1u);
    EXPECT_TRUE((*list)[0].image.empty());
    EXPECT_EQ((*list)[0].resources.requests.at("cpu"), "100m");
    ASSERT_EQ((*list)[0].ports.size(), 1u);
    EXPECT_EQ((*list)[0].ports[0].host_port, 53);
  }
}

// A scrape sent as the client takes it (/metrics) hands the pod series over a batch at a time,
// and reads exactly as the whole text; the pieces keep the pods they started from.
TEST(PodStateSeries, ThePiecesOfAScrapeAreItsBatchesAndReadAsTheWholeText) {
  object_map<kube::node> nodes;
  nodes.insert_or_assign("n1", make_node("n1", "general", "pve-a"));
  pod_model_map pods;
  for (int i = 0; i < 5; ++i) {
    auto pod = make_pod("default", "p" + std::to_string(i), i % 2 == 0 ? "n1" : "", "Running");
    pods.insert_or_assign("default/p" + std::to_string(i), translated(*pod));
  }
  obs::object_gauges family("karpenter_pods_state", "Pods by state", 2);
  family.set(pod_state_series(std::make_shared<const pod_model_map>(pods),
                              std::make_shared<const object_map<kube::node>>(nodes)));
  std::string whole;
  family.serialize(whole);
  auto next = family.text_pieces();
  family.set(nullptr);  // a newer source (here none) leaves a scrape under way alone
  std::vector<std::string> pieces;
  for (auto piece = next(); !piece.empty(); piece = next()) pieces.push_back(piece);
  ASSERT_EQ(pieces.size(), 4u);  // the HELP and TYPE lines, then batches of 2, 2 and 1 series
  EXPECT_EQ(pieces[0],
            "# HELP karpenter_pods_state Pods by state\n# TYPE karpenter_pods_state gauge\n");
  std::string joined;
  for (const auto& piece : pieces) joined += piece;
  EXPECT_EQ(joined, whole);
  EXPECT_NE(joined.find("name=\"p0\",namespace=\"default\",node=\"n1\",nodepool=\"general\""),
            std::string::npos)
      << joined;
  EXPECT_NE(joined.find("name=\"p4\""), std::string::npos) << joined;
}

TEST(KeptFields, ANodeKeepsWhatReadersUseAndDropsTheRest) {
  kube::node n;
  n.metadata.name = "w1";
  n.metadata.labels = {{"kubernetes.io/hostname", "w1"}};
  n.spec.provider_id = "proxmox://r1/101";
  n.spec.taints = {{"dedicated", "infra", "NoSchedule", ""}};
  n.status.capacity = {{"cpu", "4"}};
  n.status.allocatable = {{"cpu", "3800m"}};
  n.status.conditions = {{"Ready", "True", "KubeletReady", "kubelet is posting ready status",
                          "2026-01-01T00:00:00Z", "2026-01-01T00:05:00Z", 0}};
  n.status.addresses = {{"InternalIP", "10.1.0.2"}, {"Hostname", "w1"}};
  n.status.node_info.machine_id = "0f3c1e8a-1b2c-4d5e-8f90-123456789abc";
  n.status.node_info.kubelet_version = "v1.30.2";
  n.status.volumes_in_use = {"kubernetes.io/csi/driver^vol-1"};
  n.status.volumes_attached = {{"kubernetes.io/csi/driver^vol-1", ""}};
  keep_used_fields(n);
  EXPECT_TRUE(n.status.addresses.empty());
  EXPECT_EQ(n.status.node_info, kube::node_system_info{});
  EXPECT_TRUE(n.status.volumes_in_use.empty());
  EXPECT_TRUE(n.status.volumes_attached.empty());
  ASSERT_EQ(n.status.conditions.size(), 1u);
  EXPECT_EQ(n.status.conditions[0].type, "Ready");
  EXPECT_EQ(n.status.conditions[0].status, "True");
  EXPECT_EQ(n.status.conditions[0].reason, "KubeletReady");
  EXPECT_EQ(n.status.conditions[0].message, "kubelet is posting ready status");
  EXPECT_EQ(n.status.conditions[0].last_transition_time, "2026-01-01T00:00:00Z");
  EXPECT_TRUE(n.status.conditions[0].last_heartbeat_time.empty());
  // What readers use stays.
  EXPECT_EQ(n.metadata.labels.at("kubernetes.io/hostname"), "w1");
  EXPECT_EQ(n.spec.provider_id, "proxmox://r1/101");
  ASSERT_EQ(n.spec.taints.size(), 1u);
  EXPECT_EQ(n.status.capacity.at("cpu"), "4");
  EXPECT_EQ(n.status.allocatable.at("cpu"), "3800m");
}

}  // namespace
}  // namespace kp::actors::cluster_state
