// The disruption actor against a real kube-sim process: the CRDs from the chart, a NodePool,
// Nodes with their NodeClaims and pods written through the API; snapshots built from what the
// API server lists (cluster_state is not used here); the real Kubernetes writes and the real
// Event recorder. Empty nodes' NodeClaims are deleted after being tainted; a node holding a
// do-not-disrupt pod stays, with a DisruptionBlocked Event. Skipped, saying why, when kube-sim
// or kubectl is missing.
#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <future>
#include <mutex>

#include <caf/all.hpp>

#include "actors/disruption/disruption_actor.hpp"
#include "actors/disruption/disruption_input.hpp"
#include "actors/event_recorder/event_recorder.hpp"
#include "protocol/kube/client.hpp"
#include "protocol/kube/client_config.hpp"
#include "protocol/kube/nodeclaim_from_plan.hpp"
#include "protocol/transport/io_runtime.hpp"
#include "snapshot_builder.hpp"
#include "test/sim/kube/kube_sim_process.hpp"
#include "test/support/eventually.hpp"

namespace kp::actors::disruption {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

class DisruptionKubeSim : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* bin = std::getenv("KP_BIN_DIR");
    if (bin == nullptr || !fs::exists(std::string(bin) + "/kube-sim"))
      GTEST_SKIP() << "kube-sim not built in $KP_BIN_DIR; build target kube-sim";
    if (!sim::kube::testing::find_kubectl()) GTEST_SKIP() << "kubectl not installed (CRDs)";
    // Nodes here have no kubelet heartbeat: keep them Ready for the test's lifetime.
    sim_ = std::make_unique<sim::kube::testing::kube_sim_process>(
        std::vector<std::string>{"--node-monitor-grace", "3600"});
    ASSERT_TRUE(sim_->ok()) << sim_->error();
    const char* src = std::getenv("KP_SOURCE_DIR");
    ASSERT_NE(src, nullptr);
    auto applied =
        sim_->kubectl({"apply", "-f", std::string(src) + "/chart/karpenter-proxmox/crds/"});
    ASSERT_EQ(applied.exit_code, 0) << applied.err;
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

  template <class T>
  static T await(std::future<T>& f) {
    if (f.wait_for(15s) != std::future_status::ready) {
      ADD_FAILURE() << "no answer from kube-sim within 15 s";
      std::abort();
    }
    return f.get();
  }

  template <class T>
  result<T> create(const T& object) {
    std::promise<result<T>> done;
    auto f = done.get_future();
    client_->create<T>(object, [&done](result<T> r) { done.set_value(std::move(r)); });
    return await(f);
  }

  // Creates the object, then writes its status through the status subresource (create drops
  // the status of kinds that have one).
  template <class T>
  void create_with_status(const T& object) {
    auto made = create(object);
    ASSERT_TRUE(made.ok()) << made.error().message;
    T with_status = *made;
    with_status.status = object.status;
    std::promise<result<T>> done;
    auto f = done.get_future();
    client_->update_status<T>(with_status, [&done](result<T> r) { done.set_value(std::move(r)); });
    auto r = await(f);
    ASSERT_TRUE(r.ok()) << r.error().message;
  }

  template <class T>
  result<kube::object_list<T>> list(const std::string& ns = "") {
    std::promise<result<kube::object_list<T>>> done;
    auto f = done.get_future();
    client_->list<T>(ns, {},
                     [&done](result<kube::object_list<T>> r) { done.set_value(std::move(r)); });
    return await(f);
  }

  template <class T>
  protocol::shared_objects<T> objects() {
    auto l = list<T>();
    auto out = std::make_shared<protocol::object_map<T>>();
    if (!l) {
      ADD_FAILURE() << l.error().message;
      return out;
    }
    for (auto& item : l->items) {
      auto key = protocol::object_key_of(item);
      (*out)[key] = std::make_shared<const T>(std::move(item));
    }
    return out;
  }

  // What cluster_state would publish: every kind as the API server lists it now.
  protocol::snapshot_ptr snapshot() {
    auto s = std::make_shared<protocol::cluster_snapshot>();
    s->generation = ++generation_;
    s->taken_unix_ms = wall_ms();
    s->synced = true;
    s->nodes = objects<kube::node>();
    s->node_claims = objects<kube::node_claim>();
    s->node_pools = objects<kube::node_pool>();
    s->pods = protocol::pod_models_of(*objects<kube::pod>());
    s->pod_disruption_budgets = objects<kube::pod_disruption_budget>();
    return s;
  }

  static std::int64_t wall_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  // Feeds fresh snapshots to `actor` until `check` holds or `limit` passes (waiting on a
  // condition variable nobody signals between rounds, so the API server is not hammered).
  template <class Check>
  bool eventually(const protocol::disruption_actor& actor, std::chrono::milliseconds limit,
                  Check check) {
    return test_support::eventually(
        [&] {
          caf::anon_send(actor, snapshot());
          return check();
        },
        limit, 100ms);
  }

  bool claim_exists(const std::string& name) {
    auto l = list<kube::node_claim>();
    if (!l) return true;
    for (const auto& c : l->items)
      if (c.metadata.name == name) return true;
    return false;
  }

  // Writes the builder's NodePools, Nodes, NodeClaims, pods and PDBs to kube-sim.
  void create_all(testing::snapshot_builder& b) {
    for (const auto& [name, p] : b.pools) {
      auto made = create(*p);
      ASSERT_TRUE(made.ok()) << made.error().message;
    }
    for (const auto& [name, n] : b.nodes) create_with_status(*n);
    for (const auto& [name, c] : b.claims) create_with_status(*c);
    for (const auto& [key, p] : b.pods) {
      auto made = create(*p);
      ASSERT_TRUE(made.ok()) << made.error().message;
    }
    for (const auto& [key, p] : b.pdbs) {
      auto made = create(*p);
      ASSERT_TRUE(made.ok()) << made.error().message;
    }
  }

  protocol::disruption_actor start_actor() {
    controller_context ctx;
    ctx.kube = client_;
    ctx.instance_types = instance_types::builtin_instance_types();
    ctx.events = event_recorder::spawn_event_recorder(*system_, client_);
    spawned_.push_back(caf::actor_cast<caf::actor>(ctx.events));
    disruption_options opts;
    opts.period = 100ms;
    opts.validation_delay = 200ms;
    opts.replacement_timeout = 30s;
    auto actor = spawn_disruption(*system_, ctx, opts);
    spawned_.push_back(caf::actor_cast<caf::actor>(actor));
    return actor;
  }

  bool has_event(const std::string& object, const std::string& reason, const std::string& part) {
    auto events = list<kube::event>();
    if (!events) return false;
    for (const auto& e : events->items)
      if (e.involved_object.name == object && e.reason == reason &&
          e.message.find(part) != std::string::npos)
        return true;
    return false;
  }

  std::unique_ptr<sim::kube::testing::kube_sim_process> sim_;
  transport::io_runtime io_{1};
  std::shared_ptr<kube::client> client_;
  caf::actor_system_config caf_config_;
  std::unique_ptr<caf::actor_system> system_;
  std::vector<caf::actor> spawned_;
  std::uint64_t generation_ = 0;
  std::shared_ptr<kube::node_pool> pool_object_;
};

TEST_F(DisruptionKubeSim, EmptyNodesClaimsAreDeletedAndADoNotDisruptPodBlocksItsNodeWithAnEvent) {
  testing::snapshot_builder b;
  b.now = wall_ms() / 1000 * 1000;
  b.pool_of().spec.disruption.consolidation_policy = "WhenEmpty";
  b.add_node("empty-1");
  b.add_node("empty-2");
  b.add_node("busy");
  b.add_pod("busy", "precious").metadata.annotations["karpenter.sh/do-not-disrupt"] = "true";

  auto pool = create(*b.pools.at("default"));
  ASSERT_TRUE(pool.ok()) << pool.error().message;
  for (const auto& [name, n] : b.nodes) create_with_status(*n);
  for (const auto& [name, c] : b.claims) create_with_status(*c);
  for (const auto& [key, p] : b.pods) {
    auto made = create(*p);
    ASSERT_TRUE(made.ok()) << made.error().message;
  }

  controller_context ctx;
  ctx.kube = client_;
  ctx.instance_types = instance_types::builtin_instance_types();
  ctx.events = event_recorder::spawn_event_recorder(*system_, client_);
  spawned_.push_back(caf::actor_cast<caf::actor>(ctx.events));
  disruption_options opts;
  opts.period = 100ms;
  opts.validation_delay = 200ms;
  auto actor = spawn_disruption(*system_, ctx, opts);
  spawned_.push_back(caf::actor_cast<caf::actor>(actor));

  ASSERT_TRUE(eventually(actor, 20s, [&] {
    return !claim_exists("nc-empty-1") && !claim_exists("nc-empty-2");
  })) << "the empty nodes' NodeClaims were not deleted";
  EXPECT_TRUE(claim_exists("nc-busy"));

  // The empty nodes were tainted before their NodeClaims went.
  for (const char* name : {"empty-1", "empty-2"}) {
    std::promise<result<kube::node>> done;
    auto f = done.get_future();
    client_->get<kube::node>({"", name},
                             [&done](result<kube::node> r) { done.set_value(std::move(r)); });
    auto n = await(f);
    ASSERT_TRUE(n.ok()) << n.error().message;
    bool tainted = false;
    for (const auto& t : n->spec.taints)
      if (t.key == "karpenter.sh/disrupted" && t.effect == "NoSchedule") tainted = true;
    EXPECT_TRUE(tainted) << name;
  }

  // The busy node's block is an Event a person can read.
  bool blocked_event = false;
  ASSERT_TRUE(eventually(actor, 10s, [&] {
    auto events = list<kube::event>();
    if (!events) return false;
    for (const auto& e : events->items)
      if (e.involved_object.name == "busy" && e.reason == "DisruptionBlocked" &&
          e.message.find("karpenter.sh/do-not-disrupt") != std::string::npos)
        blocked_event = true;
    return blocked_event;
  }));
}

TEST_F(DisruptionKubeSim, APdbAllowingNoDisruptionBlocksItsNodeWithAnEvent) {
  testing::snapshot_builder b;
  b.now = wall_ms() / 1000 * 1000;
  b.add_node("guarded");
  b.add_node("other");
  b.add_pod("guarded", "web");
  b.add_pod("other", "batch");
  b.add_pdb("web", "web", 0).spec.min_available = kube::int_or_string{true, 1, ""};
  create_all(b);
  auto actor = start_actor();
  // kube-sim's disruption controller computes disruptionsAllowed = 0 (1 healthy, 1 wanted).
  EXPECT_TRUE(eventually(actor, 20s, [&] {
    return has_event("guarded", "DisruptionBlocked", "PodDisruptionBudget default/web");
  }));
  EXPECT_TRUE(claim_exists("nc-guarded"));
}

// The whole replace flow through the API server: the replacement NodeClaim is created, the
// old one stays until the replacement is Initialized (written here, as the nodeclaim actor
// would), then it is deleted.
TEST_F(DisruptionKubeSim, ADriftedNodeIsReplacedAndDeletedOnceTheReplacementIsInitialized) {
  testing::snapshot_builder b;
  b.now = wall_ms() / 1000 * 1000;
  b.pool_of().metadata.annotations = {{"karpenter.sh/nodepool-hash", "new"},
                                      {"karpenter.sh/nodepool-hash-version", "v3"}};
  b.pool_of().spec.disruption.consolidate_after = "Never";
  b.add_node("a");
  b.claim("nc-a").metadata.annotations = {{"karpenter.sh/nodepool-hash", "old"},
                                          {"karpenter.sh/nodepool-hash-version", "v3"}};
  b.add_pod("a", "web", 500, 512);
  create_all(b);
  auto actor = start_actor();

  std::string replacement;
  ASSERT_TRUE(eventually(actor, 20s, [&] {
    auto l = list<kube::node_claim>();
    if (!l) return false;
    for (const auto& c : l->items)
      if (c.metadata.name.rfind("default-", 0) == 0) replacement = c.metadata.name;
    return !replacement.empty();
  })) << "no replacement NodeClaim was created";
  EXPECT_TRUE(claim_exists("nc-a"));

  std::promise<result<kube::node_claim>> got;
  auto f = got.get_future();
  client_->get<kube::node_claim>({"", replacement},
                                 [&](result<kube::node_claim> r) { got.set_value(r); });
  auto claim = await(f);
  ASSERT_TRUE(claim.ok()) << claim.error().message;
  EXPECT_EQ(claim->metadata.annotations.at("karpenter.sh/nodepool-hash"), "new");
  const auto now = kube::format_rfc3339(wall_ms());
  claim->status.conditions = {{"Launched", "True", "Launched", "", now, "", 0},
                              {"Registered", "True", "Registered", "", now, "", 0},
                              {"Initialized", "True", "Initialized", "", now, "", 0}};
  std::promise<result<kube::node_claim>> written;
  auto fw = written.get_future();
  client_->update_status<kube::node_claim>(
      *claim, [&](result<kube::node_claim> r) { written.set_value(std::move(r)); });
  auto w = await(fw);
  ASSERT_TRUE(w.ok()) << w.error().message;

  EXPECT_TRUE(eventually(actor, 20s, [&] { return !claim_exists("nc-a"); }))
      << "the drifted NodeClaim was not deleted after its replacement initialized";
  EXPECT_TRUE(claim_exists(replacement));
  EXPECT_TRUE(has_event("nc-a", "DisruptionLaunching", replacement));
}

}  // namespace
}  // namespace kp::actors::disruption

namespace kp::actors::disruption {
namespace {

TEST_F(DisruptionKubeSim, TheKubeWritesTaintMarkAnnotateAndDeleteForReal) {
  testing::snapshot_builder b;
  b.now = wall_ms() / 1000 * 1000;
  b.add_node("a");
  auto made_pool = create(*b.pools.at("default"));
  ASSERT_TRUE(made_pool.ok());
  pool_object_ = std::make_shared<kube::node_pool>(*made_pool);
  create_with_status(*b.nodes.at("a"));
  create_with_status(*b.claims.at("nc-a"));
  auto writes = kube_cluster_writes(client_, [] { return wall_ms(); });
  auto run = [](auto&& op) {
    std::promise<status> done;
    auto f = done.get_future();
    op([&done](status s) { done.set_value(std::move(s)); });
    return await(f);
  };

  auto s = run([&](auto d) { writes->taint_disrupted("a", true, d); });
  ASSERT_TRUE(s.ok()) << s.error().message;
  s = run([&](auto d) { writes->taint_disrupted("a", true, d); });  // idempotent
  ASSERT_TRUE(s.ok()) << s.error().message;
  s = run([&](auto d) {
    writes->mark_disruption_reason("nc-a", "Empty", "delete 1 empty node(s) (a)", d);
  });
  ASSERT_TRUE(s.ok()) << s.error().message;
  s = run([&](auto d) {
    writes->annotate_nodeclaim("nc-a", {{"karpenter.sh/nodepool-hash", "new"}}, d);
  });
  ASSERT_TRUE(s.ok()) << s.error().message;

  std::promise<result<kube::node>> got_node;
  auto fn = got_node.get_future();
  client_->get<kube::node>({"", "a"}, [&](result<kube::node> r) { got_node.set_value(r); });
  auto node = await(fn);
  ASSERT_TRUE(node.ok());
  int disrupted = 0;
  for (const auto& t : node->spec.taints)
    if (t.key == "karpenter.sh/disrupted" && t.effect == "NoSchedule") ++disrupted;
  EXPECT_EQ(disrupted, 1);

  std::promise<result<kube::node_claim>> got_claim;
  auto fc = got_claim.get_future();
  client_->get<kube::node_claim>({"", "nc-a"},
                                 [&](result<kube::node_claim> r) { got_claim.set_value(r); });
  auto claim = await(fc);
  ASSERT_TRUE(claim.ok());
  EXPECT_EQ(claim->metadata.annotations.at("karpenter.sh/nodepool-hash"), "new");
  bool marked = false, initialized = false;
  for (const auto& c : claim->status.conditions) {
    if (c.type == "DisruptionReason" && c.status == "True" && c.reason == "Empty") marked = true;
    if (c.type == "Initialized" && c.status == "True") initialized = true;
  }
  EXPECT_TRUE(marked);
  EXPECT_TRUE(initialized);  // the other conditions survive the status patch

  // A replacement as the actor builds it passes the NodeClaim CRD's schema.
  auto in = to_disruption_input(*b.build(), instance_types::builtin_instance_types(), b.now);
  scheduling::planned_nodeclaim planned;
  planned.nodepool = "default";
  planned.instance_types = {0, 1};
  planned.labels = {{"karpenter.sh/capacity-type", "on-demand"}};
  planned.requests.set("cpu", model::quantity::from_milli(500));
  auto replacement =
      kube::nodeclaim_from_plan(planned, in.cluster.state, *pool_object_, "default-x2b4z");
  s = run([&](auto d) { writes->create_nodeclaim(replacement, d); });
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(claim_exists("default-x2b4z"));

  s = run([&](auto d) { writes->taint_disrupted("a", false, d); });
  ASSERT_TRUE(s.ok()) << s.error().message;
  s = run([&](auto d) { writes->delete_nodeclaim("nc-a", d); });
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_FALSE(claim_exists("nc-a"));
  s = run([&](auto d) { writes->delete_nodeclaim("nc-a", d); });  // already gone: fine
  EXPECT_TRUE(s.ok());
}

}  // namespace
}  // namespace kp::actors::disruption
