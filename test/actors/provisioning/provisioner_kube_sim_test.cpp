// The provisioner against a real kube-sim process: the CRDs from the chart are applied, a
// ProxmoxNodeClass and a NodePool are created through kubectl and read back, and hand-built
// snapshots (the pods live only in the snapshot) go to the actor with batch_closed. Checks the
// NodeClaims kube-sim ends up holding and the Events the provisioner sends to its recorder.
// Runs on CAF's normal scheduler (the Kubernetes client answers on io threads) and waits by
// polling with deadlines. Skipped, saying why, when kube-sim or kubectl is absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <iostream>
#include <mutex>
#include <thread>

#include <prometheus/registry.h>
#include <caf/all.hpp>

#include "actors/provisioning/provisioner.hpp"
#include "core/instance_types/instance_type.hpp"
#include "protocol/kube/client.hpp"
#include "protocol/transport/io_runtime.hpp"
#include "test/sim/kube/kube_sim_process.hpp"

namespace kp::actors::provisioning {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using sim::kube::testing::kube_sim_process;

const char* kNodeClass = R"(apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxNodeClass
metadata: {name: default}
spec:
  region: region1
  instanceTemplateRef: {kind: ProxmoxTemplate, name: ubuntu}
)";

const char* kNodePool = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
  annotations: {karpenter.sh/nodepool-hash: "4711", karpenter.sh/nodepool-hash-version: v3}
spec:
  template:
    metadata:
      labels: {team: ml}
    spec:
      nodeClassRef: {group: karpenter.proxmox.sinextra.dev, kind: ProxmoxNodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      startupTaints:
      - {key: example.com/booting, effect: NoSchedule}
      expireAfter: 24h
  limits: {cpu: "100000"}
)";

// Collects what the provisioner records; read from the test thread.
struct event_sink {
  std::mutex m;
  std::vector<protocol::event_record> events;
  std::vector<protocol::event_record> copy() {
    std::lock_guard lock(m);
    return events;
  }
};

protocol::event_recorder_actor::behavior_type recorder(protocol::event_recorder_actor::pointer,
                                                       std::shared_ptr<event_sink> sink) {
  return {[sink](protocol::event_record& e) {
    std::lock_guard lock(sink->m);
    sink->events.push_back(std::move(e));
  }};
}

struct report_sink {
  std::mutex m;
  std::condition_variable cv;
  std::vector<batch_report> reports;
};

template <class T>
T await(std::future<T>& f) {
  if (f.wait_for(20s) != std::future_status::ready) {
    ADD_FAILURE() << "no answer within 20 s";
    std::abort();
  }
  return f.get();
}

kube::pod pending_pod(const std::string& name, const std::string& cpu, const std::string& mem) {
  kube::pod p;
  p.metadata.name = name;
  p.metadata.namespace_ = "default";
  p.metadata.uid = "uid-" + name;
  p.metadata.creation_timestamp = "2026-01-01T00:00:00Z";
  kube::container c;
  c.name = "app";
  c.image = "nginx";
  c.resources.requests = {{"cpu", cpu}, {"memory", mem}};
  p.spec.containers.push_back(c);
  p.status.phase = "Pending";
  kube::condition cond;
  cond.type = "PodScheduled";
  cond.status = "False";
  cond.reason = "Unschedulable";
  p.status.conditions.push_back(cond);
  return p;
}

class ProvisionerKubeSim : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* bin = std::getenv("KP_BIN_DIR");
    if (!bin || !fs::exists(std::string(bin) + "/kube-sim"))
      GTEST_SKIP() << "kube-sim is not built (looked in $KP_BIN_DIR); build target kube-sim";
    if (!sim::kube::testing::find_kubectl()) GTEST_SKIP() << "kubectl is not installed";
    sim_ = std::make_unique<kube_sim_process>(std::vector<std::string>{});
    ASSERT_TRUE(sim_->ok()) << sim_->error();
    const std::string crds =
        std::string(std::getenv("KP_SOURCE_DIR")) + "/chart/karpenter-proxmox/crds/";
    for (const auto& f : fs::directory_iterator(crds)) {
      if (f.path().extension() != ".yaml") continue;
      auto r = sim_->kubectl({"apply", "-f", f.path().string()});
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    for (const char* yaml : {kNodeClass, kNodePool}) {
      auto r = sim_->kubectl({"apply", "-f", "-"}, yaml);
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    auto cfg = kube::load_kubeconfig(sim_->kubeconfig_path());
    ASSERT_TRUE(cfg.ok()) << cfg.error().message;
    auto c = kube::client::create(io_.context(), *cfg);
    ASSERT_TRUE(c.ok()) << c.error().message;
    client_ = *c;

    caf_cfg_.set("scheduler.max-threads", 2);
    system_ = std::make_unique<caf::actor_system>(caf_cfg_);
    ctx_.kube = client_;
    ctx_.metrics = std::make_shared<obs::karpenter_metrics>(registry_);
    ctx_.events = system_->spawn(recorder, events_);
    auto types = instance_types::builtin_instance_types();
    instance_types::build_offerings(types,
                                    {{"region1", "pve1", 512, std::int64_t{2048} << 30, true},
                                     {"region1", "pve2", 512, std::int64_t{2048} << 30, true}});
    ctx_.instance_types = std::move(types);
    provisioner_options opts;
    opts.on_batch = [sink = reports_](const batch_report& r) {
      std::lock_guard lock(sink->m);
      sink->reports.push_back(r);
      sink->cv.notify_all();
    };
    provisioner_ = spawn_provisioner(*system_, ctx_, opts);
  }

  void TearDown() override {
    io_.stop();  // no completion may reach the actor system while it is destroyed
    if (system_) {
      caf::anon_send_exit(provisioner_, caf::exit_reason::user_shutdown);
      caf::anon_send_exit(ctx_.events, caf::exit_reason::user_shutdown);
      provisioner_ = nullptr;
      ctx_ = {};
      system_.reset();
    }
    client_.reset();
    sim_.reset();
  }

  template <class T>
  std::vector<T> list() {
    std::promise<result<kube::object_list<T>>> p;
    auto f = p.get_future();
    client_->list_all<T>("", {},
                         [&p](result<kube::object_list<T>> r) { p.set_value(std::move(r)); });
    auto r = await(f);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? r->items : std::vector<T>{};
  }

  template <class T>
  static protocol::shared_objects<T> objects(const std::vector<T>& items) {
    auto m = std::make_shared<protocol::object_map<T>>();
    for (const auto& i : items) (*m)[protocol::object_key_of(i)] = std::make_shared<T>(i);
    return m;
  }

  // A synced snapshot: the given pods, and everything else as kube-sim holds it now.
  protocol::snapshot_ptr snapshot(const std::vector<kube::pod>& pods,
                                  std::function<void(kube::proxmox_node_class&)> edit = {},
                                  std::function<void(kube::node_pool&)> edit_pool = {}) {
    auto s = std::make_shared<protocol::cluster_snapshot>();
    s->generation = ++generation_;
    s->synced = true;
    s->pods = protocol::pod_models_of(*objects(pods));
    s->nodes = objects(list<kube::node>());
    s->node_claims = objects(list<kube::node_claim>());
    auto pools = list<kube::node_pool>();
    if (edit_pool)
      for (auto& p : pools) edit_pool(p);
    s->node_pools = objects(pools);
    auto classes = list<kube::proxmox_node_class>();
    if (edit)
      for (auto& c : classes) edit(c);
    s->node_classes = objects(classes);
    s->daemon_sets = objects(std::vector<kube::daemon_set>{});
    return s;
  }

  void publish(protocol::snapshot_ptr s) { caf::anon_send(provisioner_, std::move(s)); }
  void close_batch(std::uint64_t id) {
    protocol::batch_closed b;
    b.id = id;
    caf::anon_send(provisioner_, b);
  }

  std::vector<batch_report> wait_reports(std::size_t n) {
    std::unique_lock lock(reports_->m);
    reports_->cv.wait_for(lock, 60s, [&] { return reports_->reports.size() >= n; });
    return reports_->reports;
  }

  // Polls kube-sim until it holds `n` NodeClaims (or the deadline passes).
  std::vector<kube::node_claim> wait_claims(std::size_t n, std::chrono::seconds within = 30s) {
    const auto deadline = std::chrono::steady_clock::now() + within;
    for (;;) {
      auto claims = list<kube::node_claim>();
      if (claims.size() >= n || std::chrono::steady_clock::now() > deadline) return claims;
      std::this_thread::sleep_for(20ms);  // polling, bounded by the deadline
    }
  }

  std::vector<protocol::event_record> wait_events(const std::string& reason, std::size_t n) {
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    for (;;) {
      std::vector<protocol::event_record> out;
      for (auto& e : events_->copy())
        if (e.reason == reason) out.push_back(e);
      if (out.size() >= n || std::chrono::steady_clock::now() > deadline) return out;
      std::this_thread::sleep_for(10ms);  // polling, bounded by the deadline
    }
  }

  std::unique_ptr<kube_sim_process> sim_;
  transport::io_runtime io_{1};
  std::shared_ptr<kube::client> client_;
  prometheus::Registry registry_;
  caf::actor_system_config caf_cfg_;
  std::unique_ptr<caf::actor_system> system_;
  controller_context ctx_;
  std::shared_ptr<event_sink> events_ = std::make_shared<event_sink>();
  std::shared_ptr<report_sink> reports_ = std::make_shared<report_sink>();
  protocol::provisioner_actor provisioner_;
  std::uint64_t generation_ = 0;
};

TEST_F(ProvisionerKubeSim, PendingPodsBecomeNodeClaimsNamedLabelledAndOwnedByTheirNodePool) {
  std::vector<kube::pod> pods = {pending_pod("a", "500m", "1Gi"), pending_pod("b", "500m", "1Gi"),
                                 pending_pod("c", "500m", "1Gi")};
  publish(snapshot(pods));
  close_batch(1);
  auto reports = wait_reports(1);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].pending_pods, 3u);
  EXPECT_EQ(reports[0].unschedulable, 0u);
  ASSERT_GE(reports[0].nodeclaims, 1u);
  auto claims = wait_claims(reports[0].nodeclaims);
  ASSERT_EQ(claims.size(), reports[0].nodeclaims);
  const auto pool = list<kube::node_pool>().at(0);
  auto named_like_karpenter = [](const std::string& name) {  // default-[a-z0-9]{5}
    return name.size() == 13 && name.rfind("default-", 0) == 0 &&
           std::all_of(name.begin() + 8, name.end(),
                       [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); });
  };
  for (const auto& c : claims) {
    EXPECT_TRUE(named_like_karpenter(c.metadata.name)) << c.metadata.name;
    EXPECT_EQ(c.metadata.labels.at("karpenter.sh/nodepool"), "default");
    EXPECT_EQ(c.metadata.labels.at("team"), "ml");
    EXPECT_EQ(c.metadata.labels.at("karpenter.proxmox.sinextra.dev/proxmoxnodeclass"), "default");
    EXPECT_EQ(c.metadata.annotations.at("karpenter.sh/nodepool-hash"), "4711");
    EXPECT_EQ(c.metadata.annotations.at("karpenter.sh/nodepool-hash-version"), "v3");
    ASSERT_EQ(c.metadata.owner_references.size(), 1u);
    const auto& owner = c.metadata.owner_references[0];
    EXPECT_EQ(owner.kind, "NodePool");
    EXPECT_EQ(owner.api_version, "karpenter.sh/v1");
    EXPECT_EQ(owner.name, "default");
    EXPECT_EQ(owner.uid, pool.metadata.uid);
    EXPECT_EQ(owner.block_owner_deletion, std::optional<bool>(true));
    bool types = false, capacity = false;
    for (const auto& r : c.spec.requirements) {
      if (r.key == "node.kubernetes.io/instance-type")
        types = r.operator_ == "In" && !r.values.empty();
      if (r.key == "karpenter.sh/capacity-type")
        capacity = r.values == std::vector<std::string>{"on-demand"};
    }
    EXPECT_TRUE(types);
    EXPECT_TRUE(capacity);
    EXPECT_TRUE(c.spec.resource_requests.count("cpu"));
    EXPECT_EQ(c.spec.node_class_ref.name, "default");
    EXPECT_EQ(c.spec.node_class_ref.kind, "ProxmoxNodeClass");
    EXPECT_EQ(c.spec.expire_after, "24h");
    ASSERT_EQ(c.spec.startup_taints.size(), 1u);
    EXPECT_EQ(c.spec.startup_taints[0].key, "example.com/booting");
  }
  auto nominated = wait_events("Nominated", 3);
  ASSERT_EQ(nominated.size(), 3u);
  for (const auto& e : nominated) {
    EXPECT_EQ(e.kind, "Pod");
    EXPECT_EQ(e.type, "Normal");
    EXPECT_TRUE(e.message.starts_with("Pod should schedule on: nodeclaim/default-")) << e.message;
  }
  const double created =
      ctx_.metrics->nodeclaims_created
          .Add(
              {{"reason", "provisioned"}, {"nodepool", "default"}, {"min_values_relaxed", "false"}})
          .Value();
  EXPECT_EQ(created, static_cast<double>(claims.size()));
}

TEST_F(ProvisionerKubeSim, TwoBatchesClosedBackToBackCreateOnlyOnce) {
  std::vector<kube::pod> pods;
  for (int i = 0; i < 40; ++i) pods.push_back(pending_pod("p" + std::to_string(i), "1", "2Gi"));
  publish(snapshot(pods));
  close_batch(1);
  close_batch(2);
  auto reports = wait_reports(2);
  ASSERT_EQ(reports.size(), 2u);
  ASSERT_GE(reports[0].nodeclaims, 1u);
  EXPECT_EQ(reports[1].nodeclaims, 0u);
  EXPECT_EQ(reports[1].pending_pods, 0u);  // all counted on the claims of batch 1
  auto claims = wait_claims(reports[0].nodeclaims);
  ASSERT_EQ(claims.size(), reports[0].nodeclaims);
  // The informer now shows the claims (not launched yet) while the pods still wait: a third
  // batch must not create again either.
  publish(snapshot(pods));
  close_batch(3);
  reports = wait_reports(3);
  ASSERT_EQ(reports.size(), 3u);
  EXPECT_EQ(reports[2].nodeclaims, 0u);
  EXPECT_EQ(list<kube::node_claim>().size(), reports[0].nodeclaims);
}

TEST_F(ProvisionerKubeSim, APodThatFitsNowhereGetsFailedSchedulingAndNoNodeClaim) {
  publish(snapshot({pending_pod("huge", "1000", "1Gi")}));
  close_batch(1);
  auto reports = wait_reports(1);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].nodeclaims, 0u);
  EXPECT_EQ(reports[0].unschedulable, 1u);
  auto failed = wait_events("FailedScheduling", 1);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].type, "Warning");
  EXPECT_EQ(failed[0].name, "huge");
  EXPECT_NE(failed[0].message.find("NodePool \"default\""), std::string::npos) << failed[0].message;
  EXPECT_TRUE(list<kube::node_claim>().empty());
  EXPECT_EQ(ctx_.metrics->scheduler_unschedulable_pods.Add({{"controller", "provisioner"}}).Value(),
            1.0);
}

TEST_F(ProvisionerKubeSim, ANodeClassThatIsNotReadyBlocksItsPoolAndTheEventSaysWhy) {
  auto not_ready = [](kube::proxmox_node_class& c) {
    kube::condition cond;
    cond.type = "Ready";
    cond.status = "False";
    cond.reason = "TemplateNotFound";
    cond.message = "template ubuntu is missing on every host";
    c.status.conditions.push_back(cond);
  };
  publish(snapshot({pending_pod("a", "1", "1Gi")}, not_ready));
  close_batch(1);
  auto reports = wait_reports(1);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].nodeclaims, 0u);
  auto failed = wait_events("FailedScheduling", 1);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_NE(failed[0].message.find("ProxmoxNodeClass \"default\" is not ready"), std::string::npos)
      << failed[0].message;
  EXPECT_NE(failed[0].message.find("template ubuntu is missing on every host"), std::string::npos)
      << failed[0].message;
  EXPECT_TRUE(list<kube::node_claim>().empty());
}

TEST_F(ProvisionerKubeSim, NodePoolLimitsCapWhatIsCreatedAcrossBatches) {
  // 16 CPUs allowed: the first claim may become a 16-vCPU type, so it uses the whole limit
  // (counted pessimistically, as Karpenter does) and nothing else is created, now or later.
  auto limited = [](kube::node_pool& p) { p.spec.limits = {{"cpu", "16"}}; };
  std::vector<kube::pod> pods;
  for (int i = 0; i < 40; ++i) pods.push_back(pending_pod("l" + std::to_string(i), "1", "1Gi"));
  publish(snapshot(pods, {}, limited));
  close_batch(1);
  auto reports = wait_reports(1);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].nodeclaims, 1u);
  EXPECT_GT(reports[0].unschedulable, 0u);
  auto failed = wait_events("FailedScheduling", reports[0].unschedulable);
  ASSERT_FALSE(failed.empty());
  EXPECT_NE(failed[0].message.find("limit"), std::string::npos) << failed[0].message;
  auto claims = wait_claims(1);
  ASSERT_EQ(claims.size(), 1u);
  publish(snapshot(pods, {}, limited));
  close_batch(2);
  reports = wait_reports(2);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[1].nodeclaims, 0u);
  EXPECT_EQ(list<kube::node_claim>().size(), 1u);
}

TEST_F(ProvisionerKubeSim, AThousandPodsAreProvisionedInOneBatch) {
  std::vector<kube::pod> pods;
  // 16 shapes, so the solver packs mixed sizes rather than one repeated pod.
  const char* cpus[] = {"250m", "500m", "1", "2"};
  const char* mems[] = {"512Mi", "1Gi", "2Gi", "4Gi"};
  for (int i = 0; i < 1000; ++i)
    pods.push_back(pending_pod("w" + std::to_string(i), cpus[i % 4], mems[(i / 4) % 4]));
  publish(snapshot(pods));
  const auto start = std::chrono::steady_clock::now();
  close_batch(1);
  auto reports = wait_reports(1);
  ASSERT_EQ(reports.size(), 1u);
  auto claims = wait_claims(reports[0].nodeclaims, 60s);
  const double acknowledged =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(reports[0].pending_pods, 1000u);
  EXPECT_EQ(reports[0].unschedulable, 0u);
  EXPECT_EQ(claims.size(), reports[0].nodeclaims);
  std::cout << "[ measure  ] 1,000 pods: " << reports[0].nodeclaims
            << " NodeClaims; batch_closed -> all creates sent " << reports[0].total_seconds * 1000
            << " ms (solve " << reports[0].solve_seconds * 1000
            << " ms); all visible in kube-sim after " << acknowledged * 1000 << " ms\n";
}

}  // namespace
}  // namespace kp::actors::provisioning
