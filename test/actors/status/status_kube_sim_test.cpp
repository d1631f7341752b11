// The leader elector, the Event recorder and the NodePool status actor against a real kube-sim
// process, on CAF's normal scheduler: waits are bounded by deadlines on conditions, never sleeps.
// Skipped, saying why, when build/bin/kube-sim (or kubectl, for the CRDs) is missing.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <sstream>

#include <prometheus/registry.h>
#include <caf/all.hpp>

#include "actors/controller_context.hpp"
#include "actors/event_recorder/event_recorder.hpp"
#include "actors/leader_election/leader_elector.hpp"
#include "actors/leader_election/lease_decision.hpp"
#include "actors/nodepool_status/nodepool_status.hpp"
#include "actors/nodepool_status/nodepool_status_plan.hpp"
#include "observability/karpenter_metrics.hpp"
#include "protocol/kube/coordination_v1.hpp"
#include "protocol/kube/core_v1.hpp"
#include "protocol/kube/drift_hash.hpp"
#include "protocol/kube/model_translation.hpp"
#include "protocol/transport/io_runtime.hpp"
#include "snapshot_builder.hpp"
#include "test/sim/kube/kube_sim_process.hpp"
#include "test/support/await_completion.hpp"
#include "test/support/eventually.hpp"

namespace kp::actors {
namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;
namespace fs = std::filesystem;

// What the leadership listeners saw: who leads now, and whether two ever led at once.
struct leadership_log {
  std::mutex m;
  std::condition_variable cv;
  std::map<std::string, bool> leading;
  int overlaps = 0;
  std::map<std::string, clock_type::time_point> acquired_at;

  void record(const std::string& id, bool now_leading) {
    std::lock_guard<std::mutex> lock(m);
    leading[id] = now_leading;
    if (now_leading) acquired_at[id] = clock_type::now();
    int n = 0;
    for (auto& [who, l] : leading) n += l ? 1 : 0;
    if (n > 1) ++overlaps;
    cv.notify_all();
  }
  std::string leader() {
    for (auto& [who, l] : leading)
      if (l) return who;
    return "";
  }
  // Waits until `pred` holds (under the lock) or the deadline passes.
  template <class Pred>
  bool wait_for(std::chrono::milliseconds limit, Pred pred) {
    std::unique_lock<std::mutex> lock(m);
    return cv.wait_for(lock, limit, pred);
  }
};

protocol::leadership_listener::behavior_type listener_behavior(
    protocol::leadership_listener::pointer, std::shared_ptr<leadership_log> log, std::string id) {
  return {[log, id](protocol::leadership_atom, bool leading) { log->record(id, leading); }};
}

class StatusKubeSim : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* bin = std::getenv("KP_BIN_DIR");
    if (bin == nullptr || !fs::exists(std::string(bin) + "/kube-sim")) {
      GTEST_SKIP() << "kube-sim not built in $KP_BIN_DIR; build target kube-sim";
    }
    sim_ = std::make_unique<sim::kube::testing::kube_sim_process>();
    ASSERT_TRUE(sim_->ok()) << sim_->error();
    auto cfg = kube::load_kubeconfig(sim_->kubeconfig_path());
    ASSERT_TRUE(cfg.ok()) << cfg.error().message;
    auto c = kube::client::create(io_.context(), *cfg);
    ASSERT_TRUE(c.ok()) << c.error().message;
    client_ = *c;
    system_ = std::make_unique<caf::actor_system>(caf_config_);
  }

  void TearDown() override {
    for (auto& a : spawned_) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    spawned_.clear();
    // The io thread first: a completion that arrives while the actor system is being destroyed
    // would send to it (an intermittent heap corruption). Pending completions then never run.
    io_.stop();
    system_.reset();  // waits for every actor
    client_.reset();
    sim_.reset();
  }

  template <class Handle>
  Handle keep(Handle h) {
    spawned_.push_back(caf::actor_cast<caf::actor>(h));
    return h;
  }

  // The callbacks own their promise (await_completion): one that completes after the deadline
  // must not write into a finished test's stack.
  template <class T>
  result<T> get(const std::string& ns, const std::string& name) {
    return test_support::await_completion<T>(
        [&](auto done) {
          client_->get<T>({ns, name}, std::move(done));
        },
        15s);
  }

  template <class T>
  result<T> create(const T& object) {
    return test_support::await_completion<T>(
        [&](auto done) { client_->create<T>(object, std::move(done)); }, 15s);
  }

  result<kube::object_list<kube::event>> events(const std::string& ns) {
    return test_support::await_completion<kube::object_list<kube::event>>(
        [&](auto done) { client_->list<kube::event>(ns, {}, std::move(done)); }, 15s);
  }

  template <class Check>
  bool eventually(std::chrono::milliseconds limit, Check check) {
    return test_support::eventually(check, limit, 50ms);
  }

  bool ask_leading(const protocol::leader_elector_actor& elector) {
    caf::scoped_actor self{*system_};
    bool answer = false;
    self->request(elector, 5s, protocol::leadership_atom::value)
        .receive([&](bool b) { answer = b; }, [&](caf::error&) { ADD_FAILURE() << "no answer"; });
    return answer;
  }

  leader_election::leader_election_options elector_options(const std::string& id) {
    leader_election::leader_election_options o;
    o.name = "proxmox-karpenter-leader-election";
    o.namespace_ = "default";
    o.identity = id;
    o.lease_duration = 2s;
    o.renew_deadline = 1500ms;
    o.retry_period = 200ms;
    return o;
  }

  protocol::leader_elector_actor start_elector(leader_election::leader_election_options o,
                                               std::shared_ptr<leadership_log> log) {
    auto listener = keep(system_->spawn(listener_behavior, log, o.identity));
    return keep(leader_election::spawn_leader_elector(*system_, client_, std::move(o), listener));
  }

  std::unique_ptr<sim::kube::testing::kube_sim_process> sim_;
  transport::io_runtime io_{1};
  std::shared_ptr<kube::client> client_;
  caf::actor_system_config caf_config_;
  // The metrics' families live here: an actor still finishing a write after the test body sets
  // its gauges until TearDown has stopped it.
  prometheus::Registry registry_;
  std::unique_ptr<caf::actor_system> system_;
  std::vector<caf::actor> spawned_;
};

TEST_F(StatusKubeSim,
       twoElectorsOnOneLeaseNeverLeadAtOnceAndACrashedLeaderIsReplacedAfterTheLeaseDuration) {
  auto log = std::make_shared<leadership_log>();
  std::map<std::string, protocol::leader_elector_actor> electors;
  for (std::string id : {"replica-a", "replica-b"}) {
    auto o = elector_options(id);
    o.release_on_exit = false;  // stands for a crash: nobody gives the Lease up
    electors[id] = start_elector(o, log);
  }
  ASSERT_TRUE(log->wait_for(10s, [&] { return !log->leader().empty(); })) << "nobody leads";
  std::string leader;
  {
    std::lock_guard<std::mutex> lock(log->m);
    leader = log->leader();
  }
  // Let the leader renew for longer than a lease duration: the follower had every chance to
  // take over wrongly.
  ASSERT_TRUE(eventually(10s, [&] {
    auto l = get<kube::lease>("default", "proxmox-karpenter-leader-election");
    if (!l) return false;
    auto acquired = kube::parse_rfc3339_ms(l->spec.acquire_time);
    auto renewed = kube::parse_rfc3339_ms(l->spec.renew_time);
    return acquired && renewed && *renewed - *acquired > 2'500;
  }));
  const std::string follower = leader == "replica-a" ? "replica-b" : "replica-a";
  EXPECT_TRUE(ask_leading(electors[leader]));
  EXPECT_FALSE(ask_leading(electors[follower]));
  auto lease = get<kube::lease>("default", "proxmox-karpenter-leader-election");
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ(lease->spec.holder_identity, leader);
  EXPECT_EQ(lease->spec.lease_duration_seconds, 2);

  const auto stopped = clock_type::now();
  caf::anon_send_exit(electors[leader], caf::exit_reason::kill);
  ASSERT_TRUE(log->wait_for(10s, [&] { return log->leading[follower]; }))
      << "the follower never took over";
  const auto took =
      std::chrono::duration_cast<std::chrono::milliseconds>(log->acquired_at[follower] - stopped);
  // Expiry counts from the crashed leader's last renewTime, one retry period (200 ms) before the
  // kill when the machine is idle, earlier when it is loaded; a follower ignoring expiry would
  // take over within a retry period.
  EXPECT_GE(took.count(), 1'000) << "taken over before the Lease expired";
  EXPECT_LE(took.count(), 2'000 + 3'000);
  EXPECT_EQ(log->overlaps, 0) << "two replicas led at once";
  lease = get<kube::lease>("default", "proxmox-karpenter-leader-election");
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ(lease->spec.holder_identity, follower);
  EXPECT_EQ(lease->spec.lease_transitions, 1);
}

TEST_F(StatusKubeSim, aLeaderThatShutsDownReleasesTheLeaseSoTheOtherTakesOverBeforeItExpires) {
  auto log = std::make_shared<leadership_log>();
  std::map<std::string, protocol::leader_elector_actor> electors;
  for (std::string id : {"replica-a", "replica-b"}) {
    auto o = elector_options(id);
    o.lease_duration = 30s;
    o.renew_deadline = 20s;
    electors[id] = start_elector(o, log);
  }
  ASSERT_TRUE(log->wait_for(10s, [&] { return !log->leader().empty(); }));
  std::string leader;
  {
    std::lock_guard<std::mutex> lock(log->m);
    leader = log->leader();
  }
  const std::string follower = leader == "replica-a" ? "replica-b" : "replica-a";
  const auto stopped = clock_type::now();
  caf::anon_send_exit(electors[leader], caf::exit_reason::user_shutdown);
  ASSERT_TRUE(log->wait_for(10s, [&] { return log->leading[follower]; }));
  EXPECT_LT(log->acquired_at[follower] - stopped, 10s) << "waited for expiry despite release";
  EXPECT_EQ(log->overlaps, 0);
}

TEST_F(StatusKubeSim, aLeaderThatCannotRenewWithinTheRenewDeadlineSaysSoAtOnce) {
  auto log = std::make_shared<leadership_log>();
  auto o = elector_options("replica-a");
  o.lease_duration = 4s;
  o.renew_deadline = 2s;
  auto elector = start_elector(o, log);
  ASSERT_TRUE(log->wait_for(10s, [&] { return log->leading["replica-a"]; }));
  // The API server goes away: every renewal fails from now on.
  const auto cut = clock_type::now();
  sim_.reset();
  clock_type::time_point lost;
  ASSERT_TRUE(log->wait_for(10s, [&] {
    if (log->leading["replica-a"]) return false;
    lost = clock_type::now();
    return true;
  })) << "still claims to lead without renewing";
  const auto after = std::chrono::duration_cast<std::chrono::milliseconds>(lost - cut);
  // The deadline runs from the last successful renewal, at most one retry period before the cut;
  // it must fire before the Lease (4 s) could expire for the others.
  EXPECT_GE(after.count(), 2'000 - 200 - 100);
  EXPECT_LT(after.count(), 4'000);
  EXPECT_FALSE(ask_leading(elector));
}

TEST_F(StatusKubeSim, aLeaderThatFindsTheLeaseInOtherHandsStopsLeading) {
  auto log = std::make_shared<leadership_log>();
  auto o = elector_options("replica-a");
  o.renew_deadline = 10s;
  o.lease_duration = 15s;
  start_elector(o, log);
  ASSERT_TRUE(log->wait_for(10s, [&] { return log->leading["replica-a"]; }));
  // Someone else overwrites the Lease (as a replica with a skewed clock might).
  auto overwritten = test_support::await_completion<kube::lease>(
      [&](auto done) {
        client_->update_with_retry<kube::lease>(
            {"default", "proxmox-karpenter-leader-election"},
            [](kube::lease& l) {
              l.spec.holder_identity = "intruder";
              l.spec.lease_duration_seconds = 60;
              l.spec.renew_time = leader_election::format_micro_time(
                  std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count());
              return true;
            },
            std::move(done));
      },
      15s);
  ASSERT_TRUE(overwritten.ok()) << overwritten.error().message;
  EXPECT_TRUE(log->wait_for(5s, [&] { return !log->leading["replica-a"]; }));
  auto lease = get<kube::lease>("default", "proxmox-karpenter-leader-election");
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ(lease->spec.holder_identity, "intruder") << "the live Lease was taken back";
}

TEST_F(StatusKubeSim, aFloodOfEventsAboutOneObjectIsCutAtTheBurstWithoutDelayingOthers) {
  event_recorder::event_recorder_options o;
  o.burst = 5;
  auto recorder = keep(event_recorder::spawn_event_recorder(*system_, client_, o));
  protocol::event_record e;
  e.kind = "Node";
  e.api_version = "v1";
  e.name = "flapping";
  e.uid = "flap-uid";
  e.reason = "Unhealthy";
  for (int i = 0; i < 40; ++i) {
    e.message = "probe " + std::to_string(i);
    caf::anon_send(recorder, e);
  }
  protocol::event_record other = e;
  other.name = "calm";
  other.uid = "calm-uid";
  other.message = "marker";
  caf::anon_send(recorder, other);
  std::size_t flapping = 0;
  ASSERT_TRUE(eventually(10s,
                         [&] {
                           auto list = events("default");
                           if (!list) return false;
                           flapping = 0;
                           bool marker = false;
                           for (auto& ev : list->items) {
                             if (ev.involved_object.name == "flapping") ++flapping;
                             if (ev.involved_object.name == "calm") marker = true;
                           }
                           return marker && flapping >= 5;
                         }))
      << "flapping events: " << flapping;
  // Every flapping Event was sent before the marker, so with the marker written they are too.
  EXPECT_EQ(flapping, 5u) << "the per-object burst did not hold";
}

TEST_F(StatusKubeSim, theEventRecorderCreatesAnEventThenCountsARepeatIntoIt) {
  auto recorder = keep(event_recorder::spawn_event_recorder(*system_, client_, "karpenter"));
  protocol::event_record e;
  e.kind = "Pod";
  e.api_version = "v1";
  e.namespace_ = "default";
  e.name = "web-1";
  e.uid = "0b1c-uid";
  e.type = "Normal";
  e.reason = "Nominated";
  e.message = "Pod should schedule on: nodeclaim/general-abc";
  caf::anon_send(recorder, e);
  caf::anon_send(recorder, e);
  protocol::event_record cluster_scoped;
  cluster_scoped.kind = "NodeClaim";
  cluster_scoped.api_version = "karpenter.sh/v1";
  cluster_scoped.name = "general-abc";
  cluster_scoped.uid = "9f9f-uid";
  cluster_scoped.type = "Warning";
  cluster_scoped.reason = "FailedLaunch";
  cluster_scoped.message = "no capacity";
  caf::anon_send(recorder, cluster_scoped);

  std::vector<kube::event> seen;
  ASSERT_TRUE(eventually(10s,
                         [&] {
                           auto list = events("default");
                           if (!list) return false;
                           seen = list->items;
                           int nominated_twice = 0, failed = 0;
                           for (auto& ev : seen) {
                             if (ev.reason == "Nominated" && ev.count == 2) ++nominated_twice;
                             if (ev.reason == "FailedLaunch") ++failed;
                           }
                           return nominated_twice == 1 && failed == 1;
                         }))
      << "events seen: " << seen.size();
  int nominated = 0;
  for (auto& ev : seen) {
    if (ev.reason != "Nominated") continue;
    ++nominated;
    EXPECT_EQ(ev.involved_object.kind, "Pod");
    EXPECT_EQ(ev.involved_object.name, "web-1");
    EXPECT_EQ(ev.involved_object.uid, "0b1c-uid");
    EXPECT_EQ(ev.source.component, "karpenter");
    EXPECT_EQ(ev.type, "Normal");
    EXPECT_FALSE(ev.first_timestamp.empty());
    EXPECT_FALSE(ev.last_timestamp.empty());
  }
  EXPECT_EQ(nominated, 1) << "the repeat created a second Event";
}

TEST_F(StatusKubeSim, nodePoolStatusIsWrittenOnceAndNotAgainWhileNothingChanges) {
  const char* src = std::getenv("KP_SOURCE_DIR");
  ASSERT_NE(src, nullptr);
  if (!sim::kube::testing::find_kubectl()) GTEST_SKIP() << "kubectl not installed (CRDs)";
  auto applied =
      sim_->kubectl({"apply", "-f", std::string(src) + "/chart/karpenter-proxmox/crds/"});
  ASSERT_EQ(applied.exit_code, 0) << applied.err;

  auto pool = test::make_pool("general");
  pool.metadata.resource_version.clear();
  pool.metadata.generation = 0;
  pool.spec.limits = {{"cpu", "100"}};
  pool.spec.template_.metadata.labels["team"] = "blue";
  auto created = create(pool);
  ASSERT_TRUE(created.ok()) << created.error().message;

  auto metrics = std::make_shared<obs::karpenter_metrics>(registry_);
  controller_context ctx;
  ctx.kube = client_;
  ctx.metrics = metrics;
  auto writes = std::make_shared<std::atomic<int>>(0);
  auto hash_writes = std::make_shared<std::atomic<int>>(0);
  nodepool_status::nodepool_status_options opt;
  opt.on_write = [writes, hash_writes](const std::string&, const std::string& what) {
    ++*writes;
    if (what == "hash") ++*hash_writes;
  };
  auto actor = keep(nodepool_status::spawn_nodepool_status(*system_, ctx, opt));

  auto snapshot_of = [&](const kube::node_pool& p, int extra_nodes) {
    test::snapshot_builder b;
    b.add(p).add(test::make_class("default", "True"));
    b.add(test::make_claim("general-a", "general", "node-a", "2", "4Gi"))
        .add(test::make_node("node-a", "general", "2", "4Gi"));
    b.add(test::make_claim("general-b", "general", "node-b", "4", "8Gi"))
        .add(test::make_node("node-b", "general", "4", "8Gi"));
    for (int i = 0; i < extra_nodes; ++i)
      b.add(test::make_node("extra-" + std::to_string(i), "general", "2", "2Gi"));
    return b.build();
  };

  const auto first = snapshot_of(*created, 0);
  caf::anon_send(actor, first);
  kube::node_pool written;
  ASSERT_TRUE(eventually(10s, [&] {
    auto p = get<kube::node_pool>("", "general");
    if (!p) return false;
    written = *p;
    return written.status.nodes == 2 && !written.status.conditions.empty() &&
           kube::nodepool_hash_current(written);
  }));
  EXPECT_EQ(written.status.resources["cpu"], "6");
  EXPECT_EQ(written.status.resources["memory"], "12Gi");
  EXPECT_EQ(written.status.resources["nodes"], "2");
  bool ready = false;
  for (auto& c : written.status.conditions)
    if (c.type == "Ready") ready = c.status == "True";
  EXPECT_TRUE(ready);
  EXPECT_EQ(written.metadata.annotations["karpenter.sh/nodepool-hash-version"], "kp-v1");
  EXPECT_EQ(writes->load(), 2) << "one status write and one hash write";

  // A stale snapshot (before our writes) and a fresh one showing them: nothing to write.
  caf::anon_send(actor, first);
  caf::anon_send(actor, snapshot_of(written, 0));
  // Then a real change; the actor handles messages in order, so once this one is written the
  // two before it have been handled.
  caf::anon_send(actor, snapshot_of(written, 1));
  ASSERT_TRUE(eventually(10s, [&] {
    auto p = get<kube::node_pool>("", "general");
    return p && p->status.nodes == 3;
  }));
  EXPECT_EQ(writes->load(), 3) << "only the change was written";
  EXPECT_EQ(hash_writes->load(), 1);
  EXPECT_DOUBLE_EQ(
      metrics->nodepools_usage.Add({{"resource_type", "cpu"}, {"nodepool", "general"}}).Value(),
      8.0);
  EXPECT_DOUBLE_EQ(
      metrics->nodepools_limit.Add({{"resource_type", "cpu"}, {"nodepool", "general"}}).Value(),
      100.0);
}

TEST_F(StatusKubeSim, aRefusedNodePoolStatusIsCountedLoggedOnceAndNotRetriedUntilTheSpecChanges) {
  const char* src = std::getenv("KP_SOURCE_DIR");
  ASSERT_NE(src, nullptr);
  if (!sim::kube::testing::find_kubectl()) GTEST_SKIP() << "kubectl not installed (CRDs)";
  // Our NodePool CRD with condition messages capped at 5 characters: the actor's write (reason
  // NodeClassNotFound, "NodeClass not found on cluster") is refused with 422 Invalid.
  std::ifstream in(std::string(src) + "/chart/karpenter-proxmox/crds/karpenter.sh_nodepools.yaml");
  std::stringstream crd;
  crd << in.rdbuf();
  auto text = crd.str();
  const auto at = text.find("maxLength: 32768");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 16, "maxLength: 5");
  auto applied = sim_->kubectl({"apply", "-f", "-"}, text);
  ASSERT_EQ(applied.exit_code, 0) << applied.err;

  auto pool = test::make_pool("strict");
  pool.metadata.resource_version.clear();
  pool.metadata.generation = 0;
  auto created = create(pool);
  ASSERT_TRUE(created.ok()) << created.error().message;

  auto metrics = std::make_shared<obs::karpenter_metrics>(registry_);
  controller_context ctx;
  ctx.kube = client_;
  ctx.metrics = metrics;
  auto status_writes = std::make_shared<std::atomic<int>>(0);
  nodepool_status::nodepool_status_options opt;
  opt.on_write = [status_writes](const std::string&, const std::string& what) {
    if (what == "status") ++*status_writes;
  };
  auto actor = keep(nodepool_status::spawn_nodepool_status(*system_, ctx, opt));
  auto refusals = [&] {
    return metrics->status_write_refusals.Add({{"kind", "NodePool"}}).Value();
  };
  auto snapshot_of = [](const kube::node_pool& p) {
    test::snapshot_builder b;
    b.add(p);  // no ProxmoxNodeClass: NodeClassReady=False with a message
    return b.build();
  };

  caf::anon_send(actor, snapshot_of(*created));
  ASSERT_TRUE(eventually(10s, [&] { return refusals() == 1.0; }));
  for (int i = 0; i < 20; ++i) caf::anon_send(actor, snapshot_of(*created));

  // A new spec (generation 2) is worth one more try; the actor handles messages in order, so
  // once it is refused the twenty snapshots before it have been handled, without a write.
  auto changed = sim_->kubectl(
      {"patch", "nodepool", "strict", "--type=merge", "-p", R"({"spec":{"weight":7}})"});
  ASSERT_EQ(changed.exit_code, 0) << changed.err;
  auto newer = get<kube::node_pool>("", "strict");
  ASSERT_TRUE(newer.ok()) << newer.error().message;
  ASSERT_EQ(newer->metadata.generation, 2);
  caf::anon_send(actor, snapshot_of(*newer));
  ASSERT_TRUE(eventually(10s, [&] { return refusals() == 2.0; }));
  EXPECT_EQ(status_writes->load(), 2) << "one write per generation, none per snapshot";
  auto stored = get<kube::node_pool>("", "strict");
  ASSERT_TRUE(stored.ok());
  EXPECT_TRUE(stored->status.conditions.empty()) << "every write was refused";
}

}  // namespace
}  // namespace kp::actors
