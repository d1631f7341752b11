// The informers and cluster_state against a real kube-sim process, on the normal CAF scheduler:
// objects of the watched kinds created, updated and deleted with kubectl show up in the
// published snapshots; after the simulator drops every watch the informers resume without
// re-listing, after a forced 410 Expired they re-list, and in both cases they converge. The test
// waits on conditions with deadlines, never by sleeping. Skipped, saying why, when kube-sim or
// kubectl is absent.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <prometheus/registry.h>
#include <boost/json.hpp>
#include <caf/all.hpp>

#include "actors/cluster_state/cluster_state.hpp"
#include "actors/cluster_state/informer.hpp"
#include "observability/karpenter_metrics.hpp"
#include "protocol/kube/client.hpp"
#include "protocol/kube/client_config.hpp"
#include "protocol/transport/io_runtime.hpp"
#include "test/sim/kube/kube_sim_process.hpp"
#include "test/support/await_completion.hpp"

namespace kp::actors::cluster_state {
namespace {

using namespace std::chrono_literals;
using namespace kp::protocol;
namespace fs = std::filesystem;
using kp::sim::kube::testing::kube_sim_process;

// The newest snapshot any listener got, for the test thread to wait on.
struct latest_snapshot {
  std::mutex m;
  std::condition_variable cv;
  snapshot_ptr snap;

  void put(snapshot_ptr s) {
    std::lock_guard lock(m);
    snap = std::move(s);
    cv.notify_all();
  }
  // The first snapshot (the current one included) that satisfies `pred`, or null at the deadline.
  snapshot_ptr wait_for(const std::function<bool(const cluster_snapshot&)>& pred,
                        std::chrono::seconds limit = 20s) {
    std::unique_lock lock(m);
    bool ok = cv.wait_for(lock, limit, [&] { return snap && pred(*snap); });
    return ok ? snap : nullptr;
  }
};

snapshot_listener::behavior_type listener(snapshot_listener::pointer,
                                          std::shared_ptr<latest_snapshot> box) {
  return {[box](snapshot_ptr s) { box->put(std::move(s)); }};
}

template <class T>
bool has(const shared_objects<T>& objects, const std::string& key) {
  return cluster_snapshot::find(objects, key) != nullptr;
}

bool has(const shared_pod_models& pods, const std::string& key) {
  return cluster_snapshot::find(pods, key) != nullptr;
}

template <class T>
std::string label_of(const shared_objects<T>& objects, const std::string& key,
                     const std::string& label) {
  const T* o = cluster_snapshot::find(objects, key);
  if (o == nullptr) return "<absent>";
  auto it = o->metadata.labels.find(label);
  return it == o->metadata.labels.end() ? "<unset>" : it->second;
}

std::string label_of(const shared_pod_models& pods, const std::string& key,
                     const std::string& label) {
  const model::pod* p = cluster_snapshot::find(pods, key);
  if (p == nullptr) return "<absent>";
  auto it = p->labels.find(label);
  return it == p->labels.end() ? "<unset>" : it->second;
}

constexpr const char* objects_yaml = R"(apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  containers: [{name: app, image: nginx}]
---
apiVersion: v1
kind: Node
metadata: {name: w1}
---
apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxNodeClass
metadata: {name: pnc-1}
spec:
  instanceTemplateRef: {kind: ProxmoxTemplate, name: ubuntu}
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata: {name: nc-1}
spec:
  nodeClassRef: {group: karpenter.proxmox.sinextra.dev, kind: ProxmoxNodeClass, name: pnc-1}
  requirements:
  - {key: kubernetes.io/arch, operator: In, values: [amd64]}
)";

class ClusterStateKubeSim : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* bin = std::getenv("KP_BIN_DIR");
    if (bin == nullptr || !fs::exists(std::string(bin) + "/kube-sim")) {
      GTEST_SKIP() << "kube-sim is not built in $KP_BIN_DIR (build target kube-sim)";
    }
    if (!kp::sim::kube::testing::find_kubectl()) GTEST_SKIP() << "kubectl is not installed";
    sim_ = std::make_unique<kube_sim_process>(sim_args_);
    ASSERT_TRUE(sim_->ok()) << sim_->error();
    const char* src = std::getenv("KP_SOURCE_DIR");
    ASSERT_NE(src, nullptr);
    kubectl({"create", "-f", std::string(src) + "/chart/karpenter-proxmox/crds"});
    auto cfg = kube::load_kubeconfig(sim_->kubeconfig_path());
    ASSERT_TRUE(cfg.ok()) << cfg.error().message;
    auto c = kube::client::create(io_.context(), *cfg);
    ASSERT_TRUE(c.ok()) << c.error().message;
    client_ = *c;
  }

  void start(std::chrono::milliseconds resync = std::chrono::minutes(10)) {
    caf_config_.set("scheduler.max-threads", 2);
    system_ = std::make_unique<caf::actor_system>(caf_config_);
    metrics_ = std::make_shared<obs::karpenter_metrics>(registry_);
    cluster_state_options o;
    o.publish_interval = 20ms;
    cs_ = spawn_cluster_state(*system_, metrics_, o);
    box_ = std::make_shared<latest_snapshot>();
    listener_ = system_->spawn(listener, box_);
    caf::anon_send(cs_, subscribe_atom::value, listener_);
    informer_options io;
    io.system_namespace = "kube-system";
    io.resync_period = resync;
    io.reflector.initial_backoff = 20ms;
    io.reflector.max_backoff = 500ms;
    informers_ = spawn_informers(*system_, client_, cs_, io);
    ASSERT_EQ(informers_.size(), 11u);
  }

  void TearDown() override {
    for (auto& i : informers_) caf::anon_send_exit(i, caf::exit_reason::user_shutdown);
    if (cs_) caf::anon_send_exit(cs_, caf::exit_reason::user_shutdown);
    if (listener_) caf::anon_send_exit(listener_, caf::exit_reason::user_shutdown);
    informers_.clear();
    cs_ = nullptr;
    listener_ = nullptr;
    // The io thread first: a completion that arrives while the actor system is being destroyed
    // would send to it (an intermittent heap corruption). Pending completions then never run.
    io_.stop();
    system_.reset();  // waits for every actor
    client_.reset();
    sim_.reset();
  }

  void kubectl(const std::vector<std::string>& args, const std::string& input = "") {
    auto r = sim_->kubectl(args, input);
    ASSERT_EQ(r.exit_code, 0) << "kubectl failed: " << r.err;
  }

  // The callbacks own their promise (await_completion): one that completes after the deadline
  // must not write into a finished test's stack.
  result<std::string> sim_request(const std::string& method, const std::string& path,
                                  const std::string& body) {
    return test_support::await_completion<std::string>(
        [&](auto done) {
          client_->request(method, path, body, body.empty() ? "" : "application/json",
                           std::move(done));
        },
        15s);
  }

  void control(const std::string& path, const std::string& body) {
    auto r = sim_request("POST", path, body);
    ASSERT_TRUE(r.ok()) << r.error().message;
  }

  // Watch streams the simulator has open right now (-1 when it cannot tell).
  std::int64_t open_watches() {
    auto r = sim_request("GET", "/sim/v1/stats", "");
    if (!r) return -1;
    return boost::json::parse(*r).as_object().at("watches").to_number<std::int64_t>();
  }

  // Polls the simulator's open watch count until `pred` holds, bounded by a deadline (the
  // server sees a closed stream at its next write, a bookmark at most 200 ms away).
  bool watches_become(const std::function<bool(std::int64_t)>& pred) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    std::int64_t n = open_watches();
    while (!pred(n) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(50ms);
      n = open_watches();
    }
    EXPECT_TRUE(pred(n)) << "open watches: " << n;
    return pred(n);
  }

  snapshot_ptr synced() {
    auto s = box_->wait_for([](const cluster_snapshot& s) { return s.synced; });
    EXPECT_TRUE(s) << "cluster_state never became synced";
    return s;
  }

  double gauge(const std::string& name) {
    for (auto& family : registry_.Collect())
      if (family.name == name && !family.metric.empty()) return family.metric[0].gauge.value;
    return -1;
  }

  // Frequent bookmarks, so the watches resume from them.
  std::vector<std::string> sim_args_ = {"--bookmark-interval-ms", "200"};
  transport::io_runtime io_{1};
  std::unique_ptr<kube_sim_process> sim_;
  std::shared_ptr<kube::client> client_;
  caf::actor_system_config caf_config_;
  std::unique_ptr<caf::actor_system> system_;
  prometheus::Registry registry_;
  std::shared_ptr<obs::karpenter_metrics> metrics_;
  cluster_state_actor cs_;
  snapshot_listener listener_;
  std::shared_ptr<latest_snapshot> box_;
  std::vector<caf::actor> informers_;
};

TEST_F(ClusterStateKubeSim, snapshotsFollowCreatedUpdatedAndDeletedObjectsOfTheWatchedKinds) {
  start();
  ASSERT_TRUE(synced());
  EXPECT_EQ(gauge("karpenter_cluster_state_synced"), 1);

  kubectl({"apply", "-f", "-"}, objects_yaml);
  auto created = box_->wait_for([](const cluster_snapshot& s) {
    return has(s.pods, "default/web") && has(s.nodes, "w1") && has(s.node_claims, "nc-1") &&
           has(s.node_classes, "pnc-1");
  });
  ASSERT_TRUE(created) << "not every created object reached a snapshot";
  EXPECT_EQ(cluster_snapshot::find(created->node_claims, "nc-1")->spec.node_class_ref.name,
            "pnc-1");

  kubectl({"label", "pod/web", "tier=front"});
  kubectl({"label", "node/w1", "tier=front"});
  kubectl({"label", "nodeclaim/nc-1", "tier=front"});
  kubectl({"label", "proxmoxnodeclass/pnc-1", "tier=front"});
  auto updated = box_->wait_for([](const cluster_snapshot& s) {
    return label_of(s.pods, "default/web", "tier") == "front" &&
           label_of(s.nodes, "w1", "tier") == "front" &&
           label_of(s.node_claims, "nc-1", "tier") == "front" &&
           label_of(s.node_classes, "pnc-1", "tier") == "front";
  });
  ASSERT_TRUE(updated) << "not every update reached a snapshot";
  EXPECT_EQ(gauge("karpenter_cluster_state_node_count"), 1);

  kubectl(
      {"delete", "--wait=false", "pod/web", "node/w1", "nodeclaim/nc-1", "proxmoxnodeclass/pnc-1"});
  auto deleted = box_->wait_for([](const cluster_snapshot& s) {
    return !has(s.pods, "default/web") && !has(s.nodes, "w1") && !has(s.node_claims, "nc-1") &&
           !has(s.node_classes, "pnc-1");
  });
  ASSERT_TRUE(deleted) << "not every deletion reached a snapshot";
  EXPECT_EQ(gauge("karpenter_cluster_state_node_count"), 0);
}

TEST_F(ClusterStateKubeSim, onlyLabelledSecretsInTheSystemNamespaceAreBootstrapTokens) {
  start();
  ASSERT_TRUE(synced());
  // In apply order: the wrong two first, so by the time the right one arrives the informer
  // would have seen them too had its namespace or selector let them through.
  const std::string label(bootstrap_token_owner_label);
  kubectl({"apply", "-f", "-"},
          "apiVersion: v1\nkind: Secret\nmetadata: {name: unrelated, "
          "namespace: kube-system}\nstringData: {a: b}\n"
          "---\napiVersion: v1\nkind: Secret\nmetadata: {name: elsewhere, "
          "namespace: default, labels: {" +
              label +
              ": nc-2}}\nstringData: {a: b}\n"
              "---\napiVersion: v1\nkind: Secret\nmetadata: {name: "
              "bootstrap-token-abcdef, namespace: kube-system, labels: {" +
              label + ": nc-1}}\nstringData: {token-id: abcdef}\n");
  auto s = box_->wait_for([](const cluster_snapshot& s) {
    return has(s.bootstrap_tokens, "kube-system/bootstrap-token-abcdef");
  });
  ASSERT_TRUE(s);
  EXPECT_EQ(s->bootstrap_tokens->size(), 1u);
}

TEST_F(ClusterStateKubeSim, informersResumeAfterTheSimulatorDropsEveryWatch) {
  start();
  auto before = synced();
  ASSERT_TRUE(before);
  control("/sim/v1/watches/drop", "{}");
  kubectl({"apply", "-f", "-"}, objects_yaml);
  auto after = box_->wait_for([](const cluster_snapshot& s) {
    return has(s.pods, "default/web") && has(s.nodes, "w1") && has(s.node_claims, "nc-1") &&
           has(s.node_classes, "pnc-1");
  });
  ASSERT_TRUE(after) << "objects created after the drop never arrived";
  // Resumed from their resourceVersion: kinds nobody touched kept their map (no re-list).
  EXPECT_EQ(after->daemon_sets, before->daemon_sets);
  EXPECT_EQ(after->volume_attachments, before->volume_attachments);
  control("/sim/v1/watches/drop", "{}");
  kubectl({"delete", "--wait=false", "pod/web", "nodeclaim/nc-1"});
  ASSERT_TRUE(box_->wait_for([](const cluster_snapshot& s) {
    return !has(s.pods, "default/web") && !has(s.node_claims, "nc-1") && has(s.nodes, "w1");
  })) << "deletions after the drop never arrived";
}

// No bookmarks during the test: one arriving just before the drop would move an informer past
// the expired history and spare it the 410.
class ClusterStateKubeSimWithoutBookmarks : public ClusterStateKubeSim {
 protected:
  ClusterStateKubeSimWithoutBookmarks() { sim_args_ = {"--bookmark-interval-ms", "3600000"}; }
};

TEST_F(ClusterStateKubeSimWithoutBookmarks, informersRelistAfterAForced410AndConverge) {
  start();
  auto before = synced();
  ASSERT_TRUE(before);
  kubectl({"apply", "-f", "-"}, objects_yaml);
  auto present = box_->wait_for([](const cluster_snapshot& s) {
    return has(s.node_claims, "nc-1") && has(s.pods, "default/web");
  });
  ASSERT_TRUE(present);
  // The simulator forgets all but the newest event, three writes nobody watches move past
  // every informer's resourceVersion, and the watches are dropped: every informer's next watch
  // is refused with 410 Expired, so each must re-list.
  control("/sim/v1/history", R"({"limit": 1})");
  kubectl({"apply", "-f", "-"},
          "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\n---\n"
          "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: default}\n---\n"
          "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n");
  control("/sim/v1/watches/drop", "{}");
  auto relisted = box_->wait_for([&](const cluster_snapshot& s) {
    return s.daemon_sets != present->daemon_sets &&
           s.volume_attachments != present->volume_attachments &&
           s.node_pools != present->node_pools && s.templates != present->templates &&
           s.unmanaged_templates != present->unmanaged_templates &&
           s.pod_disruption_budgets != present->pod_disruption_budgets &&
           s.bootstrap_tokens != present->bootstrap_tokens;
  });
  ASSERT_TRUE(relisted) << "the informers did not re-list after 410 Expired";
  EXPECT_TRUE(has(relisted->node_claims, "nc-1"));
  kubectl({"delete", "--wait=false", "nodeclaim/nc-1", "proxmoxnodeclass/pnc-1"});
  kubectl({"label", "pod/web", "tier=back"});
  ASSERT_TRUE(box_->wait_for([](const cluster_snapshot& s) {
    return !has(s.node_claims, "nc-1") && !has(s.node_classes, "pnc-1") &&
           label_of(s.pods, "default/web", "tier") == "back";
  })) << "changes after the re-list never arrived";
}

TEST_F(ClusterStateKubeSim, exitingTheInformersEndsTheirWatches) {
  start();
  ASSERT_TRUE(synced());
  // Each informer opens its watch right after its list.
  EXPECT_TRUE(watches_become([](std::int64_t n) { return n >= 11; }));
  for (auto& i : informers_) caf::anon_send_exit(i, caf::exit_reason::user_shutdown);
  EXPECT_TRUE(watches_become([](std::int64_t n) { return n == 0; }));
}

TEST_F(ClusterStateKubeSim, informersStopWatchingWhenClusterStateIsGone) {
  start();
  ASSERT_TRUE(synced());
  EXPECT_TRUE(watches_become([](std::int64_t n) { return n >= 11; }));
  caf::anon_send_exit(cs_, caf::exit_reason::user_shutdown);
  EXPECT_TRUE(watches_become([](std::int64_t n) { return n == 0; }));
}

TEST_F(ClusterStateKubeSim, informersResendTheirWholeStateEveryResyncPeriod) {
  start(300ms);
  auto first = synced();
  ASSERT_TRUE(first);
  // Nothing changes in the cluster, yet every kind arrives again as a fresh map.
  auto resynced = box_->wait_for([&](const cluster_snapshot& s) {
    return s.node_claims != first->node_claims && s.daemon_sets != first->daemon_sets &&
           s.bootstrap_tokens != first->bootstrap_tokens;
  });
  ASSERT_TRUE(resynced);
  EXPECT_EQ(resynced->node_claims->size(), first->node_claims->size());
}

}  // namespace
}  // namespace kp::actors::cluster_state
