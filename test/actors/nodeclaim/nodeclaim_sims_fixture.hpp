#pragma once
// The fixture the NodeClaim sims tests share: real kube-sim and pve-sim processes, the nodeclaim
// fleet, the node class status actor and a region actor on CAF's normal scheduler.
//
// The test thread plays cluster_state: it lists the watched kinds from kube-sim, publishes the
// snapshot to the fleet and the status actor, and checks a condition, until a deadline. Skipped,
// saying why, when kube-sim, pve-sim or kubectl is absent.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <prometheus/registry.h>
#include <boost/json.hpp>
#include <caf/all.hpp>

#include "actors/controller_context.hpp"
#include "actors/nodeclaim/nodeclaim_fleet.hpp"
#include "actors/nodeclass_status/nodeclass_status.hpp"
#include "actors/region/region_actor.hpp"
#include "core/instance_types/instance_type.hpp"
#include "core/ownership/iso_name.hpp"
#include "core/ownership/vm_mark.hpp"
#include "observability/karpenter_metrics.hpp"
#include "protocol/kube/client.hpp"
#include "protocol/kube/client_config.hpp"
#include "protocol/provider_id.hpp"
#include "protocol/proxmox/client.hpp"
#include "protocol/transport/http_client.hpp"
#include "protocol/transport/io_runtime.hpp"
#include "test/sim/kube/kube_sim_process.hpp"
#include "test/support/await_completion.hpp"
#include "test/support/pve_sim_process.hpp"

namespace kp::actors::nodeclaim_sims {

using namespace std::chrono_literals;
using namespace kp::protocol;
namespace fs = std::filesystem;
using kp::sim::kube::testing::kube_sim_process;

inline constexpr const char* region_name = "pve-sim";

template <class T>
result<T> await(const std::function<void(std::function<void(result<T>)>)>& start) {
  return kp::test_support::await_completion<T>(start, 20s);
}

inline constexpr const char* base_objects = R"(apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxUnmanagedTemplate
metadata: {name: k8s}
spec: {templateName: k8s-template}
---
apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxUnmanagedTemplate
metadata: {name: typo}
spec: {templateName: k8s-templat}
---
apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxNodeClass
metadata: {name: default}
spec:
  instanceTemplateRef: {kind: ProxmoxUnmanagedTemplate, name: k8s}
  metadataOptions: {type: cdrom}
---
apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxNodeClass
metadata: {name: bad}
spec:
  instanceTemplateRef: {kind: ProxmoxUnmanagedTemplate, name: typo}
  metadataOptions: {type: cdrom}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.proxmox.sinextra.dev, kind: ProxmoxNodeClass, name: default}
      requirements:
      - {key: kubernetes.io/arch, operator: In, values: [amd64]}
)";

inline std::string claim_yaml(const std::string& name, const std::string& node_class) {
  return R"(apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: )" +
         name + R"(
  labels: {karpenter.sh/nodepool: default}
spec:
  nodeClassRef: {group: karpenter.proxmox.sinextra.dev, kind: ProxmoxNodeClass, name: )" +
         node_class + R"(}
  requirements:
  - {key: karpenter.sh/nodepool, operator: In, values: [default]}
  - {key: kubernetes.io/arch, operator: In, values: [amd64]}
  resources:
    requests: {cpu: 500m, memory: 512Mi}
)";
}

template <class T>
shared_objects<T> by_key(std::vector<T> items) {
  auto out = std::make_shared<object_map<T>>();
  for (auto& item : items) {
    auto key = object_key_of(item);
    (*out)[key] = std::make_shared<const T>(std::move(item));
  }
  return out;
}

inline const kube::condition* condition_of(const std::vector<kube::condition>& cs,
                                           const std::string& type) {
  for (const auto& c : cs) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

inline bool is_true(const std::vector<kube::condition>& cs, const std::string& type) {
  const auto* c = condition_of(cs, type);
  return c != nullptr && c->status == "True";
}

// Every Event the actors record, for the test thread to read.
struct event_box {
  std::mutex m;
  std::vector<event_record> events;

  bool has(const std::string& name, const std::string& reason) {
    std::lock_guard lock(m);
    for (const auto& e : events) {
      if (e.name == name && e.reason == reason) return true;
    }
    return false;
  }
};

inline event_recorder_actor::behavior_type collector(event_recorder_actor::pointer,
                                                     std::shared_ptr<event_box> box) {
  return {[box](event_record& e) {
    std::lock_guard lock(box->m);
    box->events.push_back(std::move(e));
  }};
}

class NodeClaimSims : public ::testing::Test {
 protected:
  fs::path pve_data_;  // pve-sim keeps uploaded ISOs here: DIR/<node>/<storage>/iso/<file>
  void SetUp() override {
    const char* bin = std::getenv("KP_BIN_DIR");
    if (bin == nullptr || !fs::exists(std::string(bin) + "/kube-sim") ||
        !fs::exists(kp::test::pve_sim_process::binary())) {
      GTEST_SKIP() << "kube-sim or pve-sim is not built in $KP_BIN_DIR";
    }
    if (!kp::sim::kube::testing::find_kubectl()) GTEST_SKIP() << "kubectl is not installed";
    kube_ = std::make_unique<kube_sim_process>();
    ASSERT_TRUE(kube_->ok()) << kube_->error();
    const char* src = std::getenv("KP_SOURCE_DIR");
    ASSERT_NE(src, nullptr);
    kubectl({"create", "-f", std::string(src) + "/chart/karpenter-proxmox/crds"});
    kubectl({"apply", "-f", "-"}, base_objects);
    pve_data_ = fs::temp_directory_path() /
                ("kp-nodeclaim-pve-" + std::to_string(::getpid()) + "-" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
    auto started = pve_.start({"--time-scale", "0.2", "--data-dir", pve_data_.string()});
    ASSERT_TRUE(started.ok()) << started.error().message;

    auto cfg = kube::load_kubeconfig(kube_->kubeconfig_path());
    ASSERT_TRUE(cfg.ok()) << cfg.error().message;
    auto c = kube::client::create(io_.context(), *cfg);
    ASSERT_TRUE(c.ok()) << c.error().message;
    kube_client_ = *c;

    pve_client_ = std::make_shared<proxmox::client>(io_.context(), pve_.client_settings());

    caf_config_.set("scheduler.max-threads", 2);
    system_ = std::make_unique<caf::actor_system>(caf_config_);
    region::region_settings rs;
    rs.region = region_name;
    rs.cluster_name = "test-cluster";
    rs.refresh_interval = 30s;
    rs.clone_wait.initial_interval = 20ms;
    rs.clone_wait.max_interval = 200ms;
    rs.clone_wait.timeout = 60s;
    rs.start_wait = rs.clone_wait;
    proxmox::task_wait_options agent = rs.clone_wait;
    agent.timeout = 3s;  // a guest agent answers within 0.3 s of boot here
    rs.agent_wait = agent;
    region_ = region::spawn_region_actor(*system_, pve_client_, rs);

    metrics_ = std::make_shared<obs::karpenter_metrics>(registry_);
    events_ = std::make_shared<event_box>();
    ctx_.events = system_->spawn(collector, events_);
    ctx_.kube = kube_client_;
    ctx_.metrics = metrics_;
    ctx_.regions[region_name] = region_;
    ctx_.settings.system_namespace = "kube-system";
    ctx_.settings.proxmox_inventory_interval = 2s;
    ctx_.cluster_name = "test-cluster";
    ctx_.cluster_endpoint = kube_->url();
    ctx_.cluster_ca_pem = kube_->ca_pem();
    ctx_.kubernetes_version = "v1.32.0";
    ctx_.instance_types = instance_types::builtin_instance_types();
  }

  void start_actors() {
    fleet_ = spawn_nodeclaim_fleet(*system_, ctx_);
    status_ = spawn_nodeclass_status(*system_, ctx_);
  }

  void TearDown() override {
    if (fleet_) caf::anon_send_exit(fleet_, caf::exit_reason::user_shutdown);
    if (status_) caf::anon_send_exit(status_, caf::exit_reason::user_shutdown);
    if (region_) caf::anon_send_exit(region_, caf::exit_reason::user_shutdown);
    if (ctx_.events) caf::anon_send_exit(ctx_.events, caf::exit_reason::user_shutdown);
    fleet_ = nullptr;
    status_ = nullptr;
    region_ = nullptr;
    ctx_ = controller_context{};
    if (system_) system_->await_all_actors_done();
    if (pve_client_) pve_client_->close();
    io_.stop();
    system_.reset();
    if (!pve_data_.empty()) fs::remove_all(pve_data_);
    kube_client_.reset();
    pve_client_.reset();
    kube_.reset();
  }

  void kubectl(const std::vector<std::string>& args, const std::string& input = "") {
    auto r = kube_->kubectl(args, input);
    ASSERT_EQ(r.exit_code, 0) << "kubectl failed: " << r.err;
  }

  template <class T>
  std::vector<T> list(const std::string& ns, const std::string& selector = "") {
    kube::list_options o;
    o.label_selector = selector;
    auto r = await<kube::object_list<T>>([&](auto done) { kube_client_->list<T>(ns, o, done); });
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r ? r->items : std::vector<T>{};
  }

  // What cluster_state would publish: every kind the two actors read, listed now.
  snapshot_ptr take_snapshot() {
    auto s = std::make_shared<cluster_snapshot>();
    s->generation = ++generation_;
    s->synced = true;
    s->node_claims = by_key(list<kube::node_claim>(""));
    s->nodes = by_key(list<kube::node>(""));
    s->node_pools = by_key(list<kube::node_pool>(""));
    s->node_classes = by_key(list<kube::proxmox_node_class>(""));
    s->templates = by_key(list<kube::proxmox_template>(""));
    s->unmanaged_templates = by_key(list<kube::proxmox_unmanaged_template>(""));
    s->bootstrap_tokens = by_key(list<kube::secret>("kube-system", bootstrap_token_owner_label));
    return s;
  }

  // Publishes snapshots until `done` holds for one of them (or the deadline passes).
  snapshot_ptr drive(const std::function<bool(const cluster_snapshot&)>& done,
                     std::chrono::seconds limit) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    snapshot_ptr last;
    while (std::chrono::steady_clock::now() < deadline) {
      last = take_snapshot();
      if (done(*last)) return last;
      caf::anon_send(fleet_, last);
      caf::anon_send(status_, last);
      // Polling interval of the stand-in for cluster_state (it publishes on change, we poll).
      std::this_thread::sleep_for(150ms);
    }
    return nullptr;
  }

  std::vector<proxmox::cluster_resource> vms_named(const std::string& name) {
    auto r = await<std::vector<proxmox::cluster_resource>>(
        [&](auto done) { pve_client_->cluster_resources(std::nullopt, done); });
    EXPECT_TRUE(r.ok()) << r.error().message;
    std::vector<proxmox::cluster_resource> out;
    if (!r) return out;
    for (auto& res : *r) {
      if (res.type == "qemu" && res.name == name) out.push_back(res);
    }
    return out;
  }

  result<transport::http_response> sim_call(const std::string& method, const std::string& target,
                                            const std::string& body = "") {
    transport::http_client http(io_.context(), pve_.transport_options());
    transport::http_request req;
    req.method = method;
    req.target = target;
    req.headers.emplace_back("Content-Type", "application/json");
    req.body = body;
    return await<transport::http_response>([&](auto cb) { http.send(pve_.url(), req, cb); });
  }

  // Requests to pve-sim per "METHOD templated-path".
  std::map<std::string, std::int64_t> pve_stats() {
    std::map<std::string, std::int64_t> out;
    auto r = sim_call("GET", "/sim/v1/stats");
    EXPECT_TRUE(r.ok());
    if (!r.ok()) return out;
    auto counts = kp::test::request_counts(r->body);
    EXPECT_TRUE(counts.ok()) << counts.error().message;
    return counts.ok() ? *counts : out;
  }

  double counter(const std::string& name) {
    double total = 0;
    for (auto& family : registry_.Collect()) {
      if (family.name != name) continue;
      for (auto& m : family.metric) total += m.counter.value;
    }
    return total;
  }

  std::unique_ptr<kube_sim_process> kube_;
  kp::test::pve_sim_process pve_;
  transport::io_runtime io_{1};
  std::shared_ptr<kube::client> kube_client_;
  std::shared_ptr<proxmox::client> pve_client_;
  caf::actor_system_config caf_config_;
  std::unique_ptr<caf::actor_system> system_;
  region_actor region_;
  prometheus::Registry registry_;
  std::shared_ptr<obs::karpenter_metrics> metrics_;
  controller_context ctx_;
  nodeclaim_fleet_actor fleet_;
  nodeclass_status_actor status_;
  std::uint64_t generation_ = 0;
  std::shared_ptr<event_box> events_;
};

}  // namespace kp::actors::nodeclaim_sims
