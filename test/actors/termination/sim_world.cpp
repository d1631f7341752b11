#include "test/actors/termination/sim_world.hpp"

#include <cstdlib>
#include <filesystem>
#include <thread>

#include <prometheus/metric_family.h>

#include "actors/region/region_actor.hpp"
#include "protocol/kube/client_config.hpp"
#include "protocol/kube/model_translation.hpp"
#include "protocol/kube/patches.hpp"
#include "test/actors/launch_requests.hpp"

namespace kp::test {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

std::string bin_dir() {
  const char* d = std::getenv("KP_BIN_DIR");
  return d ? d : "";
}

std::string source_dir() {
  const char* d = std::getenv("KP_SOURCE_DIR");
  return d ? d : "";
}

template <class T>
protocol::shared_objects<T> list_all(kube::client& c, const std::string& ns,
                                     const std::string& selector = "") {
  kube::list_options o;
  o.label_selector = selector;
  auto r = await_result<kube::object_list<T>>([&](auto cb) { c.list_all<T>(ns, o, cb); });
  EXPECT_TRUE(r.ok()) << T::resource.plural << ": " << (r.ok() ? "" : r.error().message);
  auto out = std::make_shared<protocol::object_map<T>>();
  if (r) {
    for (auto& item : r->items) {
      auto key = protocol::object_key_of(item);
      out->emplace(std::move(key), std::make_shared<const T>(std::move(item)));
    }
  }
  return out;
}

}  // namespace

void sim_world::SetUp() {
  if (!fs::exists(bin_dir() + "/kube-sim") || !fs::exists(pve_sim_process::binary())) {
    GTEST_SKIP() << "kube-sim or pve-sim is not built in " << bin_dir();
  }
  if (!sim::kube::testing::find_kubectl()) GTEST_SKIP() << "kubectl is not installed";
  kube_sim_ = std::make_unique<sim::kube::testing::kube_sim_process>(std::vector<std::string>{
      "--pod-termination-ms", "200", "--disable-controllers", "token-cleaner"});
  ASSERT_TRUE(kube_sim_->ok()) << kube_sim_->error();
  auto applied =
      kube_sim_->kubectl({"apply", "-f", source_dir() + "/chart/karpenter-proxmox/crds/"});
  ASSERT_EQ(applied.exit_code, 0) << applied.out << applied.err;

  auto started = pve_sim_.start({"--time-scale", "0.2"});
  ASSERT_TRUE(started.ok()) << started.error().message;

  io_ = std::make_unique<transport::io_runtime>(1);
  auto cfg = kube::load_kubeconfig(kube_sim_->kubeconfig_path());
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  auto c = kube::client::create(io_->context(), *cfg);
  ASSERT_TRUE(c.ok()) << c.error().message;
  kube_ = *c;

  proxmox_ = std::make_shared<proxmox::client>(io_->context(), pve_sim_.client_settings());

  cfg_.set("scheduler.max-threads", 2);
  sys_ = std::make_unique<caf::actor_system>(cfg_);
  registry_ = std::make_shared<prometheus::Registry>();
  metrics_ = std::make_shared<obs::karpenter_metrics>(*registry_);
  region_ = spawn_region(cluster_name);
  auto log = events_;
  event_sink_ = track(sys_->spawn([log]() -> protocol::event_recorder_actor::behavior_type {
    return {[log](protocol::event_record& e) {
      std::lock_guard<std::mutex> lock(log->m);
      log->records.push_back(e);
    }};
  }));
}

std::vector<protocol::event_record> sim_world::events() {
  std::lock_guard<std::mutex> lock(events_->m);
  return events_->records;
}

bool sim_world::has_event(const std::string& kind, const std::string& name,
                          const std::string& reason) {
  for (const auto& e : events()) {
    if (e.kind == kind && e.name == name && e.reason == reason) return true;
  }
  return false;
}

void sim_world::TearDown() {
  for (auto& a : actors_) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  actors_.clear();
  region_ = protocol::region_actor{};
  event_sink_ = protocol::event_recorder_actor{};
  // No actor may call a client (timers keep them busy) once the io thread and clients go.
  if (sys_) sys_->await_all_actors_done();
  if (proxmox_) proxmox_->close();
  kube_.reset();  // before its io_context, which its sockets belong to
  io_.reset();    // joins the io thread; pending completions (and their actor handles) go away
  proxmox_.reset();
  sys_.reset();
  kube_sim_.reset();
}

protocol::region_actor sim_world::spawn_region(const std::string& cluster,
                                               std::uint32_t first_vmid) {
  actors::region::region_settings s;
  s.region = region_name;
  s.cluster_name = cluster;
  s.first_vmid = first_vmid;
  s.refresh_interval = 30s;
  s.clone_wait.initial_interval = 20ms;
  s.clone_wait.max_interval = 200ms;
  s.clone_wait.timeout = 60s;
  s.start_wait = s.clone_wait;
  auto region = track(actors::region::spawn_region_actor(*sys_, proxmox_, s));
  // No NodeClaim names a VMID yet: the region may allocate.
  caf::anon_send(region, protocol::claimed_vmids{});
  return region;
}

status sim_world::sim_control(const std::string& path, const std::string& body) {
  auto r = await_result<std::string>(
      [&](auto cb) { kube_->request("POST", path, body, "application/json", cb); });
  if (!r) return r.error();
  return {};
}

protocol::snapshot_ptr sim_world::snapshot() {
  auto s = std::make_shared<protocol::cluster_snapshot>();
  static std::atomic<std::uint64_t> generation{0};
  s->generation = ++generation;
  s->taken_unix_ms = context().wall_clock_ms();
  s->synced = true;
  s->pods = protocol::pod_models_of(*list_all<kube::pod>(*kube_, ""));
  s->nodes = list_all<kube::node>(*kube_, "");
  s->node_claims = list_all<kube::node_claim>(*kube_, "");
  s->pod_disruption_budgets = list_all<kube::pod_disruption_budget>(*kube_, "");
  s->volume_attachments = list_all<kube::volume_attachment>(*kube_, "");
  s->bootstrap_tokens =
      list_all<kube::secret>(*kube_, "kube-system", protocol::bootstrap_token_owner_label);
  return s;
}

void sim_world::make_node(const std::string& name, const std::string& provider_id) {
  kube::node n;
  n.metadata.name = name;
  n.metadata.labels["karpenter.sh/nodepool"] = "default";
  n.metadata.labels["kubernetes.io/hostname"] = name;
  n.metadata.finalizers = {"karpenter.sh/termination"};
  n.spec.provider_id = provider_id;
  n.status.capacity = {{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}};
  n.status.allocatable = n.status.capacity;
  auto created = create(n);
  ASSERT_TRUE(created.ok()) << created.error().message;
  auto ready = sim_control("/sim/v1/nodes/" + name + "/condition",
                           R"({"type":"Ready","status":"True","reason":"KubeletReady",)"
                           R"("message":"kubelet is posting ready status"})");
  ASSERT_TRUE(ready.ok()) << ready.error().message;
}

void sim_world::make_claim(const std::string& name, const std::string& provider_id,
                           const std::string& node_name, const std::string& termination_grace) {
  kube::node_claim c;
  c.metadata.name = name;
  c.metadata.labels["karpenter.sh/nodepool"] = "default";
  c.metadata.finalizers = {"karpenter.sh/termination"};
  c.spec.node_class_ref = {"karpenter.proxmox.sinextra.dev", "ProxmoxNodeClass", "default"};
  kube::node_selector_requirement req;
  req.key = "karpenter.sh/capacity-type";
  req.operator_ = "In";
  req.values = {"on-demand"};
  c.spec.requirements = {req};
  c.spec.termination_grace_period = termination_grace;
  auto created = create(c);
  ASSERT_TRUE(created.ok()) << created.error().message;
  if (provider_id.empty()) return;
  created->status.provider_id = provider_id;
  created->status.node_name = node_name;
  kube::condition launched;
  launched.type = "Launched";
  launched.status = "True";
  launched.reason = "Launched";
  launched.last_transition_time = kube::format_rfc3339(context().wall_clock_ms());
  created->status.conditions = {launched};
  auto patched = patch<kube::node_claim>("", name, kube::patch_type::merge,
                                         kube::node_claim_status_merge_patch(*created), "status");
  ASSERT_TRUE(patched.ok()) << patched.error().message;
}

void sim_world::make_pod(const std::string& name, const std::string& node, const std::string& app,
                         bool tolerate_disrupted) {
  kube::pod p;
  p.metadata.namespace_ = "default";
  p.metadata.name = name;
  p.metadata.labels["app"] = app;
  p.spec.node_name = node;
  kube::container c;
  c.name = "main";
  c.image = "registry.k8s.io/pause:3.10";
  c.resources.requests = {{"cpu", "100m"}};
  p.spec.containers = {c};
  if (tolerate_disrupted) {
    p.spec.tolerations.push_back({"karpenter.sh/disrupted", "Exists", "", "NoSchedule", {}});
  }
  auto created = create(p);
  ASSERT_TRUE(created.ok()) << created.error().message;
}

protocol::launch_reply sim_world::launch(protocol::region_actor a, const std::string& nodeclaim,
                                         const std::string& cluster) {
  (void)cluster;  // the mark's cluster is the region actor's own CLUSTER_NAME
  auto r = c2_m4_launch(nodeclaim, 2048);
  caf::scoped_actor self{*sys_};
  protocol::launch_reply out;
  out.error = {"test", "no reply"};
  self->request(a, 120s, protocol::launch_atom::value, std::move(r))
      .receive([&](protocol::launch_reply& reply) { out = std::move(reply); },
               [&](caf::error& e) {
                 out.error = {"caf", sys_->render(e)};
               });
  return out;
}

std::vector<protocol::owned_vm> sim_world::owned(protocol::region_actor a) {
  caf::scoped_actor self{*sys_};
  std::vector<protocol::owned_vm> out;
  self->request(a, 60s, protocol::list_owned_atom::value)
      .receive([&](protocol::owned_vm_listing& v) { out = std::move(v.vms); },
               [&](caf::error& e) { ADD_FAILURE() << sys_->render(e); });
  return out;
}

bool sim_world::vm_exists(std::uint32_t vmid) {
  auto r = await_result<std::vector<proxmox::cluster_resource>>(
      [&](auto cb) { proxmox_->cluster_resources(proxmox::resource_type::vm, cb); });
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  if (!r) return true;  // unknown: never report a VM gone on a failed read
  for (const auto& vm : *r) {
    if (vm.id == "qemu/" + std::to_string(vmid)) return true;
  }
  return false;
}

void sim_world::clone_directly(std::uint32_t vmid, const std::string& name,
                               const std::string& description) {
  proxmox::clone_request c;
  c.node = "pve1";
  c.source_vmid = 9001;
  c.new_vmid = vmid;
  c.name = name;
  c.description = description;
  c.full = false;
  auto task = await_result<proxmox::upid>([&](auto cb) { proxmox_->clone_vm(c, cb); });
  ASSERT_TRUE(task.ok()) << task.error().message;
  proxmox::task_wait_options w;
  w.initial_interval = 20ms;
  auto done =
      await_result<proxmox::task_status>([&](auto cb) { proxmox_->wait_task(*task, w, cb); });
  ASSERT_TRUE(done.ok()) << done.error().message;
}

actors::controller_context sim_world::context() {
  actors::controller_context ctx;
  ctx.kube = kube_;
  ctx.metrics = metrics_;
  ctx.events = event_sink_;
  ctx.regions[region_name] = region_;
  ctx.cluster_name = cluster_name;
  ctx.settings.min_drain_duration = 200ms;
  ctx.settings.orphan_vm_grace_period = 60s;
  ctx.settings.garbage_collection_interval = std::chrono::hours(1);  // tests send collect_atom
  ctx.wall_clock_ms = [this] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
               .count() +
           clock_offset_ms.load();
  };
  return ctx;
}

double sim_world::metric(const std::string& family,
                         const std::map<std::string, std::string>& labels) {
  double sum = 0;
  for (const auto& f : registry_->Collect()) {
    if (f.name != family) continue;
    for (const auto& m : f.metric) {
      bool match = true;
      for (const auto& [k, v] : labels) {
        bool found = false;
        for (const auto& l : m.label) found |= l.name == k && l.value == v;
        match &= found;
      }
      if (!match) continue;
      sum += m.counter.value + static_cast<double>(m.histogram.sample_count);
    }
  }
  return sum;
}

bool sim_world::eventually(const std::function<bool()>& done, std::chrono::seconds limit,
                           const std::function<void()>& each) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (each) each();
    if (done()) return true;
    std::this_thread::sleep_for(50ms);  // a poll interval bounded by the deadline
  }
  return false;
}

}  // namespace kp::test
