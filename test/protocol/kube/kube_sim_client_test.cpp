// The REST client against a real kube-sim process on loopback (HTTPS, its CA and admin token
// from the kubeconfig it writes): pagination, 409 conflicts and retry, watch resume after a
// forced disconnect, re-list after 410 Expired, eviction blocked by a PodDisruptionBudget, and
// service-account-style token rotation. Skipped, saying so, when the kube-sim binary is absent.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <thread>

#include "protocol/kube/client.hpp"
#include "protocol/kube/coordination_v1.hpp"
#include "protocol/kube/core_v1.hpp"
#include "protocol/kube/informer.hpp"
#include "protocol/kube/policy_v1.hpp"
#include "protocol/transport/io_runtime.hpp"
#include "test/sim/kube/kube_sim_process.hpp"
#include "test/support/child_process.hpp"

namespace kp::kube {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

template <class T>
T wait(std::future<T>& f, std::chrono::seconds limit = 15s) {
  if (f.wait_for(limit) != std::future_status::ready) {
    ADD_FAILURE() << "timed out";
    std::abort();
  }
  return f.get();
}

std::string kube_sim_binary() {
  return test::binary_path("kube-sim");
}

class KubeSim : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto binary = kube_sim_binary();
    if (!fs::exists(binary)) {
      GTEST_SKIP() << "kube-sim binary not found (looked at " << binary
                   << "); build target kube-sim";
    }
    kube_sim_ = std::make_unique<sim::kube::testing::kube_sim_process>();
    ASSERT_TRUE(kube_sim_->ok()) << kube_sim_->error();
    dir_ = kube_sim_->work_dir();
    const auto& kubeconfig = kube_sim_->kubeconfig_path();
    auto cfg = load_kubeconfig(kubeconfig);
    ASSERT_TRUE(cfg.ok()) << cfg.error().message;
    config_ = *cfg;
    auto c = client::create(io_.context(), config_);
    ASSERT_TRUE(c.ok()) << c.error().message;
    client_ = *c;
  }

  void TearDown() override {
    client_.reset();
    kube_sim_.reset();
  }

  status control(const std::string& path, const std::string& body) {
    std::promise<result<std::string>> done;
    auto f = done.get_future();
    client_->request("POST", path, body, "application/json",
                     [&](result<std::string> r) { done.set_value(std::move(r)); });
    auto r = wait(f);
    if (!r) return r.error();
    return {};
  }

  template <class T>
  result<T> create(const T& object) {
    std::promise<result<T>> done;
    auto f = done.get_future();
    client_->create<T>(object, [&](result<T> r) { done.set_value(std::move(r)); });
    return wait(f);
  }

  void make_namespace(const std::string& name) {
    namespace_object ns;
    ns.metadata.name = name;
    auto r = create(ns);
    ASSERT_TRUE(r.ok()) << r.error().message;
  }

  static config_map cm(const std::string& ns, const std::string& name) {
    config_map c;
    c.metadata.name = name;
    c.metadata.namespace_ = ns;
    c.metadata.labels["made-by"] = "kube-sim-client-test";
    c.data["k"] = "v";
    return c;
  }

  transport::io_runtime io_{1};
  std::unique_ptr<sim::kube::testing::kube_sim_process> kube_sim_;
  fs::path dir_;
  client_config config_;
  std::shared_ptr<client> client_;
};

TEST_F(KubeSim, listAllCollectsEveryPageOfAPaginatedList) {
  make_namespace("paging");
  for (int i = 0; i < 25; ++i) ASSERT_TRUE(create(cm("paging", "cm-" + std::to_string(i))).ok());
  list_options o;
  o.limit = 10;
  // The namespace controller adds its own kube-root-ca.crt ConfigMap at some point: select ours.
  o.label_selector = "made-by=kube-sim-client-test";
  std::promise<result<object_list<config_map>>> first;
  auto f1 = first.get_future();
  client_->list<config_map>(
      "paging", o, [&](result<object_list<config_map>> r) { first.set_value(std::move(r)); });
  auto page = wait(f1);
  ASSERT_TRUE(page.ok()) << page.error().message;
  EXPECT_EQ(page->items.size(), 10u);
  EXPECT_FALSE(page->continue_token.empty());
  std::promise<result<object_list<config_map>>> all;
  auto f2 = all.get_future();
  client_->list_all<config_map>(
      "paging", o, [&](result<object_list<config_map>> r) { all.set_value(std::move(r)); });
  auto everything = wait(f2);
  ASSERT_TRUE(everything.ok()) << everything.error().message;
  EXPECT_EQ(everything->items.size(), 25u);
  o.label_selector = "missing=label";
  std::promise<result<object_list<config_map>>> none;
  auto f3 = none.get_future();
  client_->list_all<config_map>(
      "paging", o, [&](result<object_list<config_map>> r) { none.set_value(std::move(r)); });
  auto empty = wait(f3);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->items.empty());
}

TEST_F(KubeSim, aStaleLeaseUpdateConflictsAndRetryWins) {
  lease l;
  l.metadata.name = "leader";
  l.metadata.namespace_ = "kube-system";
  l.spec.holder_identity = "a";
  l.spec.lease_duration_seconds = 15;
  auto created = create(l);
  ASSERT_TRUE(created.ok()) << created.error().message;
  lease newer = *created;
  newer.spec.holder_identity = "b";
  std::promise<result<lease>> u1;
  auto f1 = u1.get_future();
  client_->update<lease>(newer, [&](result<lease> r) { u1.set_value(std::move(r)); });
  ASSERT_TRUE(wait(f1).ok());
  lease stale = *created;  // still carries the first resourceVersion
  stale.spec.holder_identity = "c";
  std::promise<result<lease>> u2;
  auto f2 = u2.get_future();
  client_->update<lease>(stale, [&](result<lease> r) { u2.set_value(std::move(r)); });
  auto conflict = wait(f2);
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.error().code, "conflict");
  std::promise<result<lease>> u3;
  auto f3 = u3.get_future();
  client_->update_with_retry<lease>(
      {"kube-system", "leader"},
      [](lease& x) {
        x.spec.holder_identity = "c";
        return true;
      },
      [&](result<lease> r) { u3.set_value(std::move(r)); });
  auto won = wait(f3);
  ASSERT_TRUE(won.ok()) << won.error().message;
  EXPECT_EQ(won->spec.holder_identity, "c");
  auto dup = create(l);
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().code, "already_exists");
}

// Collects informer callbacks and lets the test wait for a condition on them. Shared with the
// callbacks, which run on the io thread and may still be running when the test returns.
struct recorder : std::enable_shared_from_this<recorder> {
  std::mutex m;
  std::condition_variable cv;
  int replaces = 0;
  std::vector<std::string> events;

  informer_callbacks<config_map> callbacks() {
    informer_callbacks<config_map> cb;
    cb.on_replace = [self = shared_from_this()](std::vector<std::shared_ptr<const config_map>>,
                                                const std::string&) {
      std::lock_guard lock(self->m);
      ++self->replaces;
      self->cv.notify_all();
    };
    cb.on_event = [self = shared_from_this()](std::string_view type, config_map c) {
      std::lock_guard lock(self->m);
      self->events.push_back(std::string(type) + " " + c.metadata.name);
      self->cv.notify_all();
    };
    return cb;
  }
  template <class P>
  bool wait_until(P pred) {
    std::unique_lock lock(m);
    return cv.wait_for(lock, 15s, pred);
  }
  bool saw(const std::string& e) {
    return std::find(events.begin(), events.end(), e) != events.end();
  }
};

// Stops an informer on every way out of a test (a failed ASSERT too), so none outlives it.
struct stop_on_exit {
  std::shared_ptr<watch_handle> handle;
  ~stop_on_exit() { handle->stop(); }
};

TEST_F(KubeSim, aWatchResumesAfterAForcedDisconnectWithoutRelisting) {
  make_namespace("watching");
  auto rec = std::make_shared<recorder>();
  reflector_options ro;
  ro.initial_backoff = 20ms;
  auto h = start_informer<config_map>(*client_, "watching", ro, rec->callbacks());
  stop_on_exit stop_h{h};
  ASSERT_TRUE(rec->wait_until([&] { return rec->replaces == 1; }));
  ASSERT_TRUE(create(cm("watching", "before")).ok());
  ASSERT_TRUE(rec->wait_until([&] { return rec->saw("ADDED before"); }));
  ASSERT_TRUE(control("/sim/v1/watches/drop", "{}").ok());
  ASSERT_TRUE(create(cm("watching", "after")).ok());
  ASSERT_TRUE(rec->wait_until([&] { return rec->saw("ADDED after"); }));
  std::lock_guard lock(rec->m);
  EXPECT_EQ(rec->replaces, 1);  // resumed from its resourceVersion, no new list
  EXPECT_EQ(std::count(rec->events.begin(), rec->events.end(), "ADDED before"), 1);
}

TEST_F(KubeSim, anExpiredWatchRelistsAndCarriesOn) {
  make_namespace("expiring");
  auto rec = std::make_shared<recorder>();
  reflector_options ro;
  ro.initial_backoff = 20ms;
  auto h = start_informer<config_map>(*client_, "expiring", ro, rec->callbacks());
  stop_on_exit stop_h{h};
  ASSERT_TRUE(rec->wait_until([&] { return rec->replaces == 1; }));
  ASSERT_TRUE(control("/sim/v1/expire", R"({"count": 1})").ok());
  ASSERT_TRUE(control("/sim/v1/watches/drop", "{}").ok());
  ASSERT_TRUE(rec->wait_until([&] { return rec->replaces == 2; }));
  ASSERT_TRUE(create(cm("expiring", "later")).ok());
  ASSERT_TRUE(rec->wait_until([&] { return rec->saw("ADDED later"); }));
}

TEST_F(KubeSim, anEvictionThatWouldViolateABudgetIsBlockedByPdb) {
  make_namespace("evict");
  // A running pod (pending ones may be evicted regardless of budgets): a ready node and a pod
  // bound to it, which the simulated kubelet starts.
  node n;
  n.metadata.name = "w1";
  ASSERT_TRUE(create(n).ok());
  n.status.capacity = {{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}};
  n.status.allocatable = n.status.capacity;
  n.status.conditions.push_back({"Ready", "True", "KubeletReady", "", "", "", 0});
  std::promise<result<node>> st;
  auto fst = st.get_future();
  client_->patch<node>(
      {"", "w1"}, patch_type::merge,
      boost::json::serialize(
          boost::json::object{{"status", encode_value(n).as_object().at("status")}}),
      [&](result<node> r) { st.set_value(std::move(r)); }, "status");
  ASSERT_TRUE(wait(fst).ok());
  pod p;
  p.metadata.name = "web-1";
  p.metadata.namespace_ = "evict";
  p.metadata.labels = {{"app", "web"}};
  p.spec.node_name = "w1";
  p.spec.containers.push_back({"app", "nginx", {}, {}, ""});
  ASSERT_TRUE(create(p).ok());
  pod_disruption_budget pdb;
  pdb.metadata.name = "web-pdb";
  pdb.metadata.namespace_ = "evict";
  pdb.spec.min_available = int_or_string{true, 1, ""};
  pdb.spec.selector = label_selector{{{"app", "web"}}, {}};
  ASSERT_TRUE(create(pdb).ok());
  // Wait (polling, bounded) until the simulated controllers run the pod and count it.
  const auto deadline = std::chrono::steady_clock::now() + 15s;
  for (;;) {
    std::promise<result<pod_disruption_budget>> got;
    auto fg = got.get_future();
    client_->get<pod_disruption_budget>({"evict", "web-pdb"}, [&](result<pod_disruption_budget> r) {
      got.set_value(std::move(r));
    });
    auto cur = wait(fg);
    ASSERT_TRUE(cur.ok()) << cur.error().message;
    if (cur->status.current_healthy == 1 && cur->status.expected_pods == 1) break;
    ASSERT_LT(std::chrono::steady_clock::now(), deadline)
        << "the PDB never counted the running pod";
    std::this_thread::sleep_for(50ms);
  }
  std::promise<status> done;
  auto f = done.get_future();
  client_->evict({"evict", "web-1"}, {}, [&](status s) { done.set_value(std::move(s)); });
  auto s = wait(f);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, "blocked_by_pdb") << s.error().message;
  EXPECT_NE(s.error().message.find("disruption budget"), std::string::npos) << s.error().message;
  std::promise<status> missing;
  auto fm = missing.get_future();
  client_->evict({"evict", "nope"}, {}, [&](status x) { missing.set_value(std::move(x)); });
  auto m = wait(fm);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, "not_found");
}

TEST_F(KubeSim, deletePreconditionsGuardAgainstAStaleVersionAndWatchersSeeTheDeletion) {
  make_namespace("deleting");
  auto created = create(cm("deleting", "victim"));
  ASSERT_TRUE(created.ok()) << created.error().message;
  auto rec = std::make_shared<recorder>();
  reflector_options ro;
  ro.field_selector = "metadata.name=victim";
  auto h = start_informer<config_map>(*client_, "deleting", ro, rec->callbacks());
  stop_on_exit stop_h{h};
  ASSERT_TRUE(rec->wait_until([&] { return rec->replaces == 1; }));
  delete_options stale;
  stale.precondition_resource_version = "1";
  stale.propagation_policy = "Background";
  std::promise<status> d1;
  auto f1 = d1.get_future();
  client_->remove<config_map>({"deleting", "victim"}, stale,
                              [&](status s) { d1.set_value(std::move(s)); });
  auto refused = wait(f1);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, "conflict");
  delete_options current;
  current.precondition_uid = created->metadata.uid;
  current.precondition_resource_version = created->metadata.resource_version;
  std::promise<status> d2;
  auto f2 = d2.get_future();
  client_->remove<config_map>({"deleting", "victim"}, current,
                              [&](status s) { d2.set_value(std::move(s)); });
  EXPECT_TRUE(wait(f2).ok());
  ASSERT_TRUE(rec->wait_until([&] { return rec->saw("DELETED victim"); }));
}

TEST_F(KubeSim, aRotatedTokenFileIsUsedForTheNextRequest) {
  const auto token_file = dir_ / "token";
  std::ofstream(token_file) << config_.token << "\n";
  client_config cfg = config_;
  cfg.token.clear();
  cfg.token_file = token_file.string();
  auto c = client::create(io_.context(), cfg);
  ASSERT_TRUE(c.ok());
  auto get_default = [&] {
    std::promise<result<namespace_object>> done;
    auto f = done.get_future();
    (*c)->get<namespace_object>({"", "default"},
                                [&](result<namespace_object> r) { done.set_value(std::move(r)); });
    return wait(f);
  };
  EXPECT_TRUE(get_default().ok());
  std::ofstream(dir_ / "next") << "not-a-valid-token";
  fs::rename(dir_ / "next", token_file);
  auto refused = get_default();
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, "unauthorized");
  std::ofstream(dir_ / "next") << config_.token;
  fs::rename(dir_ / "next", token_file);
  EXPECT_TRUE(get_default().ok());
}

}  // namespace
}  // namespace kp::kube
