// The NodeClaim lifecycle and the node class status against real kube-sim and pve-sim
// processes, on CAF's normal scheduler: a NodeClaim becomes a VM with our mark whose guest joins
// kube-sim through the ISO's bootstrap token, and the claim is Launched, Registered and
// Initialized with the token gone and the unregistered taint removed; a VM that never joins loses
// its claim after a shortened REGISTRATION_TIMEOUT; a node class naming an unknown template
// gets InstanceTemplateReady=False with a clear message and no VM is made.
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
#include "test/support/pve_sim_process.hpp"

namespace kp::actors {
namespace {

using namespace std::chrono_literals;
using namespace kp::protocol;
namespace fs = std::filesystem;
using kp::sim::kube::testing::kube_sim_process;

constexpr const char* region_name = "pve-sim";

template <class T>
result<T> await(const std::function<void(std::function<void(result<T>)>)>& start) {
  auto done = std::make_shared<std::promise<result<T>>>();
  auto future = done->get_future();
  start([done](result<T> r) { done->set_value(std::move(r)); });
  if (future.wait_for(20s) != std::future_status::ready) return make_error("test_timeout", "");
  return future.get();
}

constexpr const char* base_objects = R"(apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
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

std::string claim_yaml(const std::string& name, const std::string& node_class) {
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

const kube::condition* condition_of(const std::vector<kube::condition>& cs,
                                    const std::string& type) {
  for (const auto& c : cs) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool is_true(const std::vector<kube::condition>& cs, const std::string& type) {
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

event_recorder_actor::behavior_type collector(event_recorder_actor::pointer,
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

    proxmox::client_settings ps;
    ps.url = pve_.url();
    ps.transport.ca_pem = pve_.ca_pem();
    ps.transport.request_timeout = 20s;
    ps.credentials = proxmox::token_credentials{"kubernetes@pve!karpenter",
                                                "5e1f0a7c-0d1e-4c2a-9b3f-6a7d8e9f0a1b"};
    pve_client_ = std::make_shared<proxmox::client>(io_.context(), ps);

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
    transport::client_options o;
    o.ca_pem = pve_.ca_pem();
    transport::http_client http(io_.context(), o);
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
    auto v = boost::json::parse(r->body);
    for (const auto& e : v.at("requests").as_array()) {
      out[std::string(e.at("method").as_string()) + " " + std::string(e.at("path").as_string())] +=
          e.at("count").to_number<std::int64_t>();
    }
    return out;
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

TEST_F(NodeClaimSims, AClaimBecomesAMarkedVmWhoseGuestJoinsAndTheClaimIsInitialized) {
  start_actors();
  kubectl({"apply", "-f", "-"}, claim_yaml("default-x7k2p", "default"));
  auto done = drive(
      [](const cluster_snapshot& s) {
        const auto* c = cluster_snapshot::find(s.node_claims, "default-x7k2p");
        if (c == nullptr) return false;
        const auto& cs = c->status.conditions;
        return is_true(cs, "Launched") && is_true(cs, "Registered") && is_true(cs, "Initialized") &&
               is_true(cs, "Ready") && (!s.bootstrap_tokens || s.bootstrap_tokens->empty());
      },
      90s);
  ASSERT_TRUE(done) << "the claim never became Launched, Registered and Initialized";
  const auto* claim = cluster_snapshot::find(done->node_claims, "default-x7k2p");
  EXPECT_EQ(claim->status.provider_id.rfind("proxmox://pve-sim/", 0), 0u);
  EXPECT_EQ(claim->status.node_name, "default-x7k2p");
  EXPECT_FALSE(claim->status.capacity.empty());
  EXPECT_FALSE(claim->status.allocatable.empty());
  EXPECT_EQ(claim->status.image_id, "k8s-template");
  EXPECT_EQ(claim->metadata.labels.at("karpenter.sh/capacity-type"), "on-demand");
  EXPECT_EQ(claim->metadata.labels.at("topology.kubernetes.io/region"), "pve-sim");
  EXPECT_EQ(claim->metadata.labels.at("karpenter.proxmox.sinextra.dev/proxmoxnodeclass"),
            "default");
  EXPECT_FALSE(claim->metadata.labels.at("topology.kubernetes.io/zone").empty());
  EXPECT_FALSE(claim->metadata.labels.at("node.kubernetes.io/instance-type").empty());
  EXPECT_NE(std::find(claim->metadata.finalizers.begin(), claim->metadata.finalizers.end(),
                      "karpenter.sh/termination"),
            claim->metadata.finalizers.end());

  const auto* node = cluster_snapshot::find(done->nodes, "default-x7k2p");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->spec.provider_id, claim->status.provider_id);
  for (const auto& t : node->spec.taints) EXPECT_NE(t.key, "karpenter.sh/unregistered");
  EXPECT_NE(std::find(node->metadata.finalizers.begin(), node->metadata.finalizers.end(),
                      "karpenter.sh/termination"),
            node->metadata.finalizers.end());
  EXPECT_EQ(node->metadata.labels.at("karpenter.sh/initialized"), "true");
  EXPECT_EQ(node->metadata.labels.at("karpenter.sh/registered"), "true");
  EXPECT_EQ(node->metadata.labels.at("karpenter.sh/nodepool"), "default");

  // The VM carries our mark; its ISO is detached once the node is initialized.
  auto vms = vms_named("default-x7k2p");
  ASSERT_EQ(vms.size(), 1u);
  bool detached = false;
  auto deadline = std::chrono::steady_clock::now() + 30s;
  std::optional<ownership::ownership_mark> mark;
  while (std::chrono::steady_clock::now() < deadline) {
    auto config = await<proxmox::vm_config>(
        [&](auto cb) { pve_client_->vm_config(vms[0].node, vms[0].vmid, cb); });
    ASSERT_TRUE(config.ok()) << config.error().message;
    ASSERT_TRUE(config->description.has_value());
    mark = ownership::parse_ownership_mark(*config->description);
    if (config->drives.count("ide2") == 0) {
      detached = true;
      break;
    }
    // The actor releases the ISO on the snapshot that shows the claim initialized.
    drive([](const cluster_snapshot&) { return false; }, 1s);
  }
  ASSERT_TRUE(mark.has_value());
  EXPECT_EQ(mark->cluster, "test-cluster");
  EXPECT_EQ(mark->nodeclaim, "default-x7k2p");
  EXPECT_EQ(mark->nodepool, "default");
  EXPECT_TRUE(detached) << "the cloud-init ISO stayed attached after initialization";
  EXPECT_GE(counter("karpenter_nodes_created_total"), 1);
  EXPECT_TRUE(events_->has("default-x7k2p", "Launched"));
  EXPECT_TRUE(events_->has("default-x7k2p", "Registered"));
  bool timed = false;
  for (auto& family : registry_.Collect()) {
    if (family.name != "karpenter_cloudprovider_duration_seconds") continue;
    for (auto& m : family.metric) {
      timed = timed || m.histogram.sample_count >= 1;
    }
  }
  EXPECT_TRUE(timed) << "karpenter_cloudprovider_duration_seconds has no sample";

  // Level-triggered: more snapshots of the finished claim change nothing.
  auto before = cluster_snapshot::find(take_snapshot()->node_claims, "default-x7k2p")
                    ->metadata.resource_version;
  drive([](const cluster_snapshot&) { return false; }, 2s);
  auto after = cluster_snapshot::find(take_snapshot()->node_claims, "default-x7k2p")
                   ->metadata.resource_version;
  EXPECT_EQ(before, after);
  EXPECT_EQ(vms_named("default-x7k2p").size(), 1u);
}

TEST_F(NodeClaimSims, ChangingTheNodeClassTagsUpdatesTheRunningVmInPlace) {
  start_actors();
  kubectl({"apply", "-f", "-"}, claim_yaml("default-tagged", "default"));
  auto initialized = [](const cluster_snapshot& s) {
    const auto* c = cluster_snapshot::find(s.node_claims, "default-tagged");
    return c != nullptr && is_true(c->status.conditions, "Initialized");
  };
  ASSERT_TRUE(drive(initialized, 90s)) << "the claim never became Initialized";
  auto vms = vms_named("default-tagged");
  ASSERT_EQ(vms.size(), 1u);

  kubectl({"patch", "proxmoxnodeclass", "default", "--type=merge", "-p",
           R"({"spec":{"tags":["gpu-rack","k8s"]}})"});
  bool updated = false;
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!updated && std::chrono::steady_clock::now() < deadline) {
    drive([](const cluster_snapshot&) { return false; }, 1s);
    auto config = await<proxmox::vm_config>(
        [&](auto cb) { pve_client_->vm_config(vms[0].node, vms[0].vmid, cb); });
    ASSERT_TRUE(config.ok()) << config.error().message;
    const auto& tags = config->tags;
    updated = std::find(tags.begin(), tags.end(), "gpu-rack") != tags.end() &&
              std::find(tags.begin(), tags.end(), "karpenter") != tags.end();
  }
  EXPECT_TRUE(updated) << "the VM's tags never followed the node class";
  EXPECT_EQ(vms_named("default-tagged").size(), 1u) << "an in-place update must not replace the VM";
}

// Runs a command and returns its standard output ("" when it cannot run).
std::string output_of(const std::string& command) {
  std::string out;
  if (FILE* p = ::popen(command.c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    ::pclose(p);
  }
  return out;
}

TEST_F(NodeClaimSims, TheCdromIsAnIso9660ImageThatIsoinfoReadsWithTheRenderedCloudInit) {
  if (output_of("command -v isoinfo").empty()) GTEST_SKIP() << "isoinfo (genisoimage) is missing";
  // The guest cannot reach this endpoint, so it never joins and the ISO stays attached.
  ctx_.cluster_endpoint = "https://127.0.0.1:9";
  start_actors();
  kubectl({"apply", "-f", "-"}, claim_yaml("default-iso", "default"));
  auto launched = drive(
      [](const cluster_snapshot& s) {
        const auto* c = cluster_snapshot::find(s.node_claims, "default-iso");
        return c != nullptr && is_true(c->status.conditions, "Launched");
      },
      60s);
  ASSERT_TRUE(launched) << "the claim never launched";
  const auto* claim = cluster_snapshot::find(launched->node_claims, "default-iso");
  const auto& provider_id = claim->status.provider_id;
  // The ISO's name carries the cluster's tag, the VMID and the NodeClaim.
  auto parsed = protocol::parse_provider_id(provider_id);
  ASSERT_TRUE(parsed.has_value()) << provider_id;
  auto name = ownership::iso_file_name("test-cluster", parsed->vmid, "default-iso");
  fs::path iso;
  for (const auto& entry : fs::recursive_directory_iterator(pve_data_)) {
    if (entry.path().filename() == name) iso = entry.path();
  }
  ASSERT_FALSE(iso.empty()) << "no " << name << " under " << pve_data_;

  auto info = output_of("isoinfo -d -i '" + iso.string() + "'");
  EXPECT_NE(info.find("Volume id: cidata"), std::string::npos) << info;
  auto user_data = output_of("isoinfo -R -x /user-data -i '" + iso.string() + "'");
  EXPECT_EQ(user_data.rfind("#cloud-config", 0), 0u) << user_data;
  EXPECT_NE(user_data.find("/var/lib/kubelet/bootstrap-kubeconfig"), std::string::npos);
  EXPECT_NE(user_data.find("https://127.0.0.1:9"), std::string::npos) << "the endpoint";
  EXPECT_NE(user_data.find(provider_id), std::string::npos) << "the kubelet's providerID";
  auto meta_data = output_of("isoinfo -R -x /meta-data -i '" + iso.string() + "'");
  EXPECT_NE(meta_data.find("default-iso"), std::string::npos) << meta_data;
  // The token in the ISO is the one in the claim's bootstrap token Secret.
  ASSERT_TRUE(launched->bootstrap_tokens && launched->bootstrap_tokens->size() == 1u);
  const auto& token = *launched->bootstrap_tokens->begin()->second;
  ASSERT_EQ(token.metadata.name.rfind("bootstrap-token-", 0), 0u);
  auto token_id = token.metadata.name.substr(std::string("bootstrap-token-").size());
  EXPECT_NE(user_data.find("token: " + token_id + "."), std::string::npos)
      << "the bootstrap kubeconfig carries token " << token_id;
}

TEST_F(NodeClaimSims, AVmThatNeverJoinsLosesItsClaimAfterTheRegistrationTimeout) {
  // The guests are told an API server address where nothing listens: they never join.
  ctx_.cluster_endpoint = "https://127.0.0.1:9";
  ctx_.settings.registration_timeout = 4s;
  start_actors();
  kubectl({"apply", "-f", "-"}, claim_yaml("default-nojoin", "default"));
  auto launched = drive(
      [](const cluster_snapshot& s) {
        const auto* c = cluster_snapshot::find(s.node_claims, "default-nojoin");
        return c != nullptr && is_true(c->status.conditions, "Launched");
      },
      60s);
  ASSERT_TRUE(launched) << "the claim never launched";
  auto deleted = drive(
      [](const cluster_snapshot& s) {
        const auto* c = cluster_snapshot::find(s.node_claims, "default-nojoin");
        return c == nullptr || c->metadata.deletion_timestamp.has_value();
      },
      30s);
  ASSERT_TRUE(deleted) << "the claim was not deleted after REGISTRATION_TIMEOUT";
  const auto* c = cluster_snapshot::find(deleted->node_claims, "default-nojoin");
  if (c != nullptr) {
    EXPECT_FALSE(is_true(c->status.conditions, "Registered"));
  }
  EXPECT_EQ(cluster_snapshot::find(deleted->nodes, "default-nojoin"), nullptr);
  EXPECT_GE(counter("karpenter_nodeclaims_disrupted_total"), 1);
}

TEST_F(NodeClaimSims, ANodeClassNamingAnUnknownTemplateIsNotReadyAndNoVmIsMade) {
  start_actors();
  kubectl({"apply", "-f", "-"}, claim_yaml("bad-q9z", "bad"));
  auto done = drive(
      [](const cluster_snapshot& s) {
        const auto* nc = cluster_snapshot::find(s.node_classes, "bad");
        const auto* good = cluster_snapshot::find(s.node_classes, "default");
        const auto* claim = cluster_snapshot::find(s.node_claims, "bad-q9z");
        if (nc == nullptr || good == nullptr || claim == nullptr) return false;
        const auto* t = condition_of(nc->status.conditions, "InstanceTemplateReady");
        const auto* l = condition_of(claim->status.conditions, "Launched");
        return t != nullptr && t->status == "False" && l != nullptr && l->status == "False" &&
               is_true(good->status.conditions, "Ready");
      },
      60s);
  ASSERT_TRUE(done) << "the node class never became InstanceTemplateReady=False";
  const auto* nc = cluster_snapshot::find(done->node_classes, "bad");
  const auto* t = condition_of(nc->status.conditions, "InstanceTemplateReady");
  EXPECT_EQ(t->reason, "TemplateNotFound");
  EXPECT_NE(t->message.find("template k8s-templat not found on any online host of region "
                            "pve-sim; hosts have: k8s-template"),
            std::string::npos)
      << t->message;
  const auto* ready = condition_of(nc->status.conditions, "Ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(ready->status, "False");
  EXPECT_TRUE(is_true(nc->status.conditions, "InstanceMetadataOptionsReady"));
  const auto* claim = cluster_snapshot::find(done->node_claims, "bad-q9z");
  EXPECT_EQ(condition_of(claim->status.conditions, "Launched")->reason, "TemplateNotFound");
  EXPECT_TRUE(vms_named("bad-q9z").empty());
  EXPECT_TRUE(claim->status.provider_id.empty());
  // Unchanged conditions are not written again (more snapshots and an inventory tick).
  auto rv = nc->metadata.resource_version;
  drive([](const cluster_snapshot&) { return false; }, 3s);
  EXPECT_EQ(cluster_snapshot::find(take_snapshot()->node_classes, "bad")->metadata.resource_version,
            rv);
}

TEST_F(NodeClaimSims, AClaimThatCannotLaunchIsDeletedAfterTheLaunchTimeout) {
  ctx_.settings.launch_timeout = 2s;
  start_actors();
  kubectl({"apply", "-f", "-"}, claim_yaml("lost-1", "missing"));
  auto deleted = drive(
      [](const cluster_snapshot& s) {
        const auto* c = cluster_snapshot::find(s.node_claims, "lost-1");
        return c == nullptr || c->metadata.deletion_timestamp.has_value();
      },
      30s);
  ASSERT_TRUE(deleted) << "the claim was not deleted after LAUNCH_TIMEOUT";
  const auto* c = cluster_snapshot::find(deleted->node_claims, "lost-1");
  if (c != nullptr) {
    const auto* l = condition_of(c->status.conditions, "Launched");
    ASSERT_NE(l, nullptr);
    EXPECT_EQ(l->status, "False");
    EXPECT_EQ(l->reason, "NodeClassNotFound");
  }
  EXPECT_TRUE(vms_named("lost-1").empty());
  EXPECT_TRUE(events_->has("lost-1", "LaunchTimeout"));
  EXPECT_GE(counter("karpenter_cloudprovider_errors_total"), 1);
  EXPECT_GE(counter("karpenter_nodeclaims_disrupted_total"), 1);
}

TEST_F(NodeClaimSims, ABrokenTemplateSecretIsNamedOnTheNodeClassAndTheClaimAndNoVmIsMade) {
  kubectl({"apply", "-f", "-"}, R"(apiVersion: v1
kind: Secret
metadata: {name: tmpl, namespace: kube-system}
stringData:
  user-data: |
    #cloud-config
    hostname: {{ .Metadata.Hostname }
---
apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxNodeClass
metadata: {name: broken}
spec:
  instanceTemplateRef: {kind: ProxmoxUnmanagedTemplate, name: k8s}
  metadataOptions:
    type: cdrom
    templatesRef: {name: tmpl, namespace: kube-system}
)");
  start_actors();
  kubectl({"apply", "-f", "-"}, claim_yaml("broken-1", "broken"));
  auto done = drive(
      [](const cluster_snapshot& s) {
        const auto* nc = cluster_snapshot::find(s.node_classes, "broken");
        const auto* claim = cluster_snapshot::find(s.node_claims, "broken-1");
        if (nc == nullptr || claim == nullptr) return false;
        const auto* m = condition_of(nc->status.conditions, "InstanceMetadataOptionsReady");
        const auto* l = condition_of(claim->status.conditions, "Launched");
        return m != nullptr && m->status == "False" && l != nullptr && l->status == "False";
      },
      60s);
  ASSERT_TRUE(done);
  const auto* m =
      condition_of(cluster_snapshot::find(done->node_classes, "broken")->status.conditions,
                   "InstanceMetadataOptionsReady");
  EXPECT_EQ(m->reason, "TemplateError");
  EXPECT_NE(m->message.find("Secret kube-system/tmpl key user-data: template: user-data:2"),
            std::string::npos)
      << m->message;
  const auto* l = condition_of(
      cluster_snapshot::find(done->node_claims, "broken-1")->status.conditions, "Launched");
  EXPECT_EQ(l->reason, "TemplateError");
  EXPECT_NE(l->message.find("node class broken"), std::string::npos) << l->message;
  EXPECT_NE(l->message.find("Secret kube-system/tmpl key user-data"), std::string::npos)
      << l->message;
  EXPECT_TRUE(vms_named("broken-1").empty());
}

TEST_F(NodeClaimSims, ATemplateSecretOutsideTemplateSecretNamespacesIsRefusedWithTheSameWords) {
  kubectl({"apply", "-f", "-"}, R"(apiVersion: v1
kind: Namespace
metadata: {name: payments}
---
apiVersion: v1
kind: Secret
metadata: {name: db-password, namespace: payments}
stringData:
  user-data: "#cloud-config\n"
---
apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxNodeClass
metadata: {name: elsewhere}
spec:
  instanceTemplateRef: {kind: ProxmoxUnmanagedTemplate, name: k8s}
  metadataOptions:
    type: cdrom
    templatesRef: {name: db-password, namespace: payments}
)");
  start_actors();
  kubectl({"apply", "-f", "-"}, claim_yaml("elsewhere-1", "elsewhere"));
  auto done = drive(
      [](const cluster_snapshot& s) {
        const auto* nc = cluster_snapshot::find(s.node_classes, "elsewhere");
        const auto* claim = cluster_snapshot::find(s.node_claims, "elsewhere-1");
        if (nc == nullptr || claim == nullptr) return false;
        const auto* m = condition_of(nc->status.conditions, "InstanceMetadataOptionsReady");
        const auto* l = condition_of(claim->status.conditions, "Launched");
        return m != nullptr && m->status == "False" && l != nullptr && l->status == "False";
      },
      60s);
  ASSERT_TRUE(done);
  const auto* m =
      condition_of(cluster_snapshot::find(done->node_classes, "elsewhere")->status.conditions,
                   "InstanceMetadataOptionsReady");
  const std::string words =
      "templatesRef Secret payments/db-password is outside TEMPLATE_SECRET_NAMESPACES "
      "(kube-system): move the Secret there or add namespace payments to the setting";
  EXPECT_EQ(m->reason, "NotInTemplateSecretNamespaces");
  EXPECT_EQ(m->message, words);
  const auto* l = condition_of(
      cluster_snapshot::find(done->node_claims, "elsewhere-1")->status.conditions, "Launched");
  EXPECT_EQ(l->reason, "NotInTemplateSecretNamespaces");
  EXPECT_NE(l->message.find(words), std::string::npos) << l->message;
  EXPECT_TRUE(vms_named("elsewhere-1").empty());
}

TEST_F(NodeClaimSims, AGoProviderClaimIsAdoptedWithoutANewVmAndItsVmIsKept) {
  // A VM the Go provider made: no mark, its own description.
  proxmox::clone_request c;
  c.node = "pve1";
  c.source_vmid = 9001;
  c.new_vmid = 31000;
  c.name = "default-gogo";
  c.description = "Karpenter managed instance, class=default";
  c.full = false;
  auto task = await<proxmox::upid>([&](auto cb) { pve_client_->clone_vm(c, cb); });
  ASSERT_TRUE(task.ok()) << task.error().message;
  proxmox::task_wait_options w;
  w.initial_interval = 20ms;
  auto cloned = await<proxmox::task_status>([&](auto cb) { pve_client_->wait_task(*task, w, cb); });
  ASSERT_TRUE(cloned.ok()) << cloned.error().message;
  kubectl({"apply", "-f", "-"}, claim_yaml("default-gogo", "default"));
  auto patched = await<kube::node_claim>([&](auto cb) {
    kube_client_->patch<kube::node_claim>({"", "default-gogo"}, kube::patch_type::merge,
                                          R"({"status":{"providerID":"proxmox://pve-sim/31000"}})",
                                          cb, "status");
  });
  ASSERT_TRUE(patched.ok()) << patched.error().message;
  start_actors();
  auto done = drive(
      [](const cluster_snapshot& s) {
        const auto* claim = cluster_snapshot::find(s.node_claims, "default-gogo");
        return claim != nullptr && is_true(claim->status.conditions, "Launched");
      },
      30s);
  ASSERT_TRUE(done) << "the Go provider's claim was not adopted";
  const auto* claim = cluster_snapshot::find(done->node_claims, "default-gogo");
  EXPECT_EQ(claim->status.provider_id, "proxmox://pve-sim/31000");
  drive([](const cluster_snapshot&) { return false; }, 2s);
  auto vms = vms_named("default-gogo");
  ASSERT_EQ(vms.size(), 1u) << "adoption made another VM or removed the Go provider's";
  EXPECT_EQ(vms[0].vmid, 31000u);
}

// kproximate's model (docs/kproximate.md): a guestAgent node class with a templated host label
// and an SSH key. The VM gets no ISO; the join runs through agent exec.
constexpr const char* kproximate_class = R"(apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxNodeClass
metadata: {name: kproximate}
spec:
  instanceTemplateRef: {kind: ProxmoxUnmanagedTemplate, name: k8s}
  metadataOptions: {type: guestAgent}
  nodeLabels:
    kp-host: "{{ .TargetHost }}"
    example.com/pool: kproximate
  sshKeys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG me@laptop"]
)";

TEST_F(NodeClaimSims, AGuestAgentNodeClassJoinsThroughAgentExecWithoutAnIsoAndLabelsTheHost) {
  kubectl({"apply", "-f", "-"}, kproximate_class);
  ASSERT_EQ(sim_call("DELETE", "/sim/v1/stats")->status, 200);
  start_actors();
  kubectl({"apply", "-f", "-"}, claim_yaml("kproximate-a1", "kproximate"));
  auto done = drive(
      [](const cluster_snapshot& s) {
        const auto* c = cluster_snapshot::find(s.node_claims, "kproximate-a1");
        const auto* n = cluster_snapshot::find(s.nodes, "kproximate-a1");
        return c != nullptr && n != nullptr && is_true(c->status.conditions, "Initialized") &&
               n->metadata.labels.count("kp-host") == 1;
      },
      90s);
  ASSERT_TRUE(done) << "the guest-agent claim never became Initialized with its host label";
  const auto* claim = cluster_snapshot::find(done->node_claims, "kproximate-a1");
  const auto* node = cluster_snapshot::find(done->nodes, "kproximate-a1");
  auto zone = claim->metadata.labels.at("topology.kubernetes.io/zone");
  EXPECT_EQ(node->metadata.labels.at("kp-host"), zone);
  EXPECT_EQ(node->metadata.labels.at("example.com/pool"), "kproximate");
  EXPECT_EQ(node->spec.provider_id, claim->status.provider_id);
  for (const auto& t : node->spec.taints) EXPECT_NE(t.key, "karpenter.sh/unregistered");

  auto stats = pve_stats();
  EXPECT_EQ(stats["POST /nodes/{node}/storage/{storage}/upload"], 0) << "no ISO with guestAgent";
  EXPECT_EQ(stats["POST /nodes/{node}/qemu/{vmid}/agent/exec"], 1);
  EXPECT_GE(stats["POST /nodes/{node}/qemu/{vmid}/agent/ping"], 1);
  auto vms = vms_named("kproximate-a1");
  ASSERT_EQ(vms.size(), 1u);
  EXPECT_EQ(vms[0].node, zone);
  auto config = await<proxmox::vm_config>(
      [&](auto cb) { pve_client_->vm_config(vms[0].node, vms[0].vmid, cb); });
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->drives.count("ide2"), 0u);
  ASSERT_TRUE(config->sshkeys.has_value());
  EXPECT_EQ(*config->sshkeys, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG me@laptop");
}

TEST_F(NodeClaimSims, ABurstOfKproximateClaimsJoinsThroughTheAgentSpreadOverTheHosts) {
  // kproximate's burst: three fixed-size nodes at once, spread (P's default strategy), each
  // joined through the guest agent and labelled with its own host.
  kubectl({"apply", "-f", "-"}, kproximate_class);
  kubectl({"patch", "proxmoxnodeclass", "kproximate", "--type=merge", "-p",
           R"({"spec":{"placementStrategy":{"zoneBalance":"Spread"}}})"});
  ASSERT_EQ(sim_call("DELETE", "/sim/v1/stats")->status, 200);
  start_actors();
  std::vector<std::string> names{"burst-1", "burst-2", "burst-3"};
  for (const auto& n : names) kubectl({"apply", "-f", "-"}, claim_yaml(n, "kproximate"));
  auto done = drive(
      [&names](const cluster_snapshot& s) {
        for (const auto& n : names) {
          const auto* c = cluster_snapshot::find(s.node_claims, n);
          const auto* node = cluster_snapshot::find(s.nodes, n);
          if (c == nullptr || node == nullptr || !is_true(c->status.conditions, "Initialized") ||
              node->metadata.labels.count("kp-host") == 0) {
            return false;
          }
        }
        return true;
      },
      120s);
  ASSERT_TRUE(done) << "the burst never became three initialized nodes";
  std::set<std::string> hosts;
  for (const auto& n : names) {
    const auto* node = cluster_snapshot::find(done->nodes, n);
    const auto* claim = cluster_snapshot::find(done->node_claims, n);
    EXPECT_EQ(node->metadata.labels.at("kp-host"),
              claim->metadata.labels.at("topology.kubernetes.io/zone"));
    hosts.insert(node->metadata.labels.at("kp-host"));
    EXPECT_EQ(vms_named(n).size(), 1u);
  }
  EXPECT_EQ(hosts.size(), 3u) << "Spread puts one VM on each of the three hosts";
  auto stats = pve_stats();
  EXPECT_EQ(stats["POST /nodes/{node}/qemu/{vmid}/agent/exec"], 3);
  EXPECT_EQ(stats["POST /nodes/{node}/storage/{storage}/upload"], 0);
}

TEST_F(NodeClaimSims, AJoinCommandWithoutLabelsStillGivesTheNodeItsHostLabelAtRegistration) {
  // A user's own command that passes no labels (as kproximate's did): the Node registers
  // without kp-host and the registration adds it, rendered for the VM's host.
  kubectl({"apply", "-f", "-"}, R"(apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxNodeClass
metadata: {name: ownjoin}
spec:
  instanceTemplateRef: {kind: ProxmoxUnmanagedTemplate, name: k8s}
  metadataOptions:
    type: guestAgent
    joinCommand: >-
      kube-join server={{ .Kubernetes.Endpoint }} token={{ .Kubernetes.BootstrapToken }}
      ca={{ .Kubernetes.CA }} taints={{ .Kubernetes.Taints }}
  nodeLabels: {kp-host: "{{ .TargetHost }}"}
)");
  start_actors();
  kubectl({"apply", "-f", "-"}, claim_yaml("ownjoin-b2", "ownjoin"));
  auto done = drive(
      [](const cluster_snapshot& s) {
        const auto* c = cluster_snapshot::find(s.node_claims, "ownjoin-b2");
        const auto* n = cluster_snapshot::find(s.nodes, "ownjoin-b2");
        return c != nullptr && n != nullptr && is_true(c->status.conditions, "Registered") &&
               n->metadata.labels.count("kp-host") == 1;
      },
      90s);
  ASSERT_TRUE(done) << "the Node never got its kp-host label";
  const auto* claim = cluster_snapshot::find(done->node_claims, "ownjoin-b2");
  const auto* node = cluster_snapshot::find(done->nodes, "ownjoin-b2");
  EXPECT_EQ(node->metadata.labels.at("kp-host"),
            claim->metadata.labels.at("topology.kubernetes.io/zone"));
}

TEST_F(NodeClaimSims, AGuestAgentThatNeverAnswersFailsTheLaunchWithJoinFailed) {
  kubectl({"apply", "-f", "-"}, kproximate_class);
  auto f = sim_call("PUT", "/sim/v1/faults",
                    R"({"errors":[{"path":"/nodes/{node}/qemu/{vmid}/agent/ping","method":"POST",)"
                    R"("rate":1.0,"status":500,"message":"QEMU guest agent is not running"}]})");
  ASSERT_TRUE(f.ok() && f->status == 200);
  start_actors();
  kubectl({"apply", "-f", "-"}, claim_yaml("kproximate-mute", "kproximate"));
  auto failed = drive(
      [](const cluster_snapshot& s) {
        const auto* c = cluster_snapshot::find(s.node_claims, "kproximate-mute");
        const auto* l = c == nullptr ? nullptr : condition_of(c->status.conditions, "Launched");
        return l != nullptr && l->status == "False" && l->reason == "JoinFailed";
      },
      60s);
  ASSERT_TRUE(failed) << "the claim never showed Launched=False JoinFailed";
  const auto* l = condition_of(
      cluster_snapshot::find(failed->node_claims, "kproximate-mute")->status.conditions,
      "Launched");
  EXPECT_NE(l->message.find("did not answer within 3s"), std::string::npos) << l->message;
  EXPECT_TRUE(events_->has("kproximate-mute", "LaunchFailed"));
  EXPECT_EQ(cluster_snapshot::find(failed->nodes, "kproximate-mute"), nullptr);
  // The failed VM was removed before the reply; a retry may be cloning another one now, but
  // never more than one at a time.
  EXPECT_LE(vms_named("kproximate-mute").size(), 1u);
}

TEST_F(NodeClaimSims, TheApiServerRefusesBadKproximateFieldsNamingThem) {
  auto refused = [&](const std::string& spec_tail, const std::string& field) {
    auto r =
        kube_->kubectl({"apply", "-f", "-"}, R"(apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxNodeClass
metadata: {name: refused}
spec:
  instanceTemplateRef: {kind: ProxmoxUnmanagedTemplate, name: k8s}
)" + spec_tail);
    EXPECT_NE(r.exit_code, 0) << spec_tail;
    EXPECT_NE(r.err.find(field), std::string::npos) << r.err;
  };
  refused("  metadataOptions: {type: qemuExec}\n", "spec.metadataOptions.type");
  refused("  sshKeys: [\"not a key\"]\n", "spec.sshKeys[0]");
  refused("  metadataOptions: {type: guestAgent, joinCommand: \"\"}\n",
          "spec.metadataOptions.joinCommand");
  refused("  nodeLabels: {kp-host: {nested: 1}}\n", "spec.nodeLabels.kp-host");
  auto ok = kube_->kubectl({"apply", "-f", "-"}, kproximate_class);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

}  // namespace
}  // namespace kp::actors
