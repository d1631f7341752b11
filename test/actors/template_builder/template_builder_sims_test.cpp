// The managed template actor, through a region actor, against real kube-sim and pve-sim
// processes, on CAF's normal scheduler: a ProxmoxTemplate becomes a template VM on every host with
// status Ready and its zones (and a restarted actor finds them again); a wrong checksum gives
// ImageReady=False naming the download error and no VM; an unreachable import storage and a refused
// spec each give a condition and no VM; a changed image builds new templates, retires the old ones,
// and destroys a retired one only once the linked clone using it is gone; a deleted template's VMs
// go; no VMID comes from a nextid of the builder's own; a throw while handling one template is
// counted in karpenter_proxmox_actor_failures_total{actor="template_builder"} and the others build
// on.
//
// pve-sim's download-url fetches nothing: the file's content is "pve-sim image <url>\n", so the
// test declares that text's sha256 as the checksum (docs/pve-sim.md). The test thread plays
// cluster_state: it lists the ProxmoxTemplates from kube-sim and publishes a snapshot, until a
// condition holds or a deadline passes. Skipped, saying why, when a binary or kubectl is absent.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <caf/all.hpp>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/registry.h>

#include "actors/controller_context.hpp"
#include "actors/region/region_actor.hpp"
#include "actors/template_builder/template_builder.hpp"
#include "actors/template_builder/template_plan.hpp"
#include "protocol/kube/client.hpp"
#include "protocol/kube/client_config.hpp"
#include "protocol/proxmox/client.hpp"
#include "protocol/transport/io_runtime.hpp"
#include "test/sim/kube/kube_sim_process.hpp"
#include "test/support/await_completion.hpp"
#include "test/support/pve_sim_process.hpp"

namespace kp::actors {
namespace {

using namespace std::chrono_literals;
using namespace kp::protocol;
namespace fs = std::filesystem;
using kp::sim::kube::testing::kube_sim_process;

constexpr const char* region_name = "pve-sim";
constexpr const char* url_v1 = "https://images.example.com/noble-server-cloudimg-amd64.img";
constexpr const char* url_v2 = "https://images.example.com/noble-server-cloudimg-amd64-v2.img";

std::string sha256_hex(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < size; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

// What pve-sim's download-url writes for `url`, hashed.
std::string sim_checksum(const std::string& url) {
  return sha256_hex("pve-sim image " + url + "\n");
}

std::string template_yaml(const std::string& name, const std::string& url,
                          const std::string& checksum,
                          const std::string& image_name = "noble.img") {
  return R"(apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxTemplate
metadata: {name: )" +
         name + R"(}
spec:
  description: Ubuntu 24.04 cloud image
  sourceImage: {url: ")" +
         url + R"(", imageName: )" + image_name + R"(, checksum: ")" + checksum +
         R"(", checksumType: sha256}
  storageIDs: [local-lvm, local]
  network: [{bridge: vmbr0, firewall: true}]
  agent: {enabled: true}
  tags: [kubernetes]
)";
}

// The full path of a program found on $PATH; "" when absent.
std::string on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    auto colon = dirs.find(':', start);
    auto dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    auto candidate = fs::path(dir.empty() ? "." : dir) / program;
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return "";
}

template <class T>
result<T> await(const std::function<void(std::function<void(result<T>)>)>& start) {
  return kp::test_support::await_completion<T>(start, 20s);
}

const kube::condition* condition_of(const kube::proxmox_template& t, const std::string& type) {
  for (const auto& c : t.status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool condition_is(const kube::proxmox_template& t, const std::string& type,
                  const std::string& status, const std::string& reason = "") {
  const auto* c = condition_of(t, type);
  return c != nullptr && c->status == status && (reason.empty() || c->reason == reason);
}

struct event_box {
  std::mutex m;
  std::vector<event_record> events;
  bool has(const std::string& name, const std::string& reason) {
    std::lock_guard lock(m);
    for (const auto& e : events) {
      if (e.name == name && e.reason == reason && e.kind == "ProxmoxTemplate") return true;
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

class TemplateBuilderSims : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* bin = std::getenv("KP_BIN_DIR");
    if (bin == nullptr || !fs::exists(std::string(bin) + "/kube-sim") ||
        !fs::exists(kp::test::pve_sim_process::binary())) {
      GTEST_SKIP() << "kube-sim or pve-sim is not built in $KP_BIN_DIR";
    }
    if (!kp::sim::kube::testing::find_kubectl()) GTEST_SKIP() << "kubectl is not installed";
    curl_ = on_path("curl");
    if (curl_.empty()) GTEST_SKIP() << "curl is not installed";
    kube_ = std::make_unique<kube_sim_process>();
    ASSERT_TRUE(kube_->ok()) << kube_->error();
    const char* src = std::getenv("KP_SOURCE_DIR");
    ASSERT_NE(src, nullptr);
    kubectl({"create", "-f", std::string(src) + "/chart/karpenter-proxmox/crds"});
    auto started = pve_.start({"--time-scale", "0.2"});
    ASSERT_TRUE(started.ok()) << started.error().message;
    ca_file_ = kube_->work_dir() + "/pve-ca.pem";
    std::ofstream(ca_file_) << pve_.ca_pem();

    auto cfg = kube::load_kubeconfig(kube_->kubeconfig_path());
    ASSERT_TRUE(cfg.ok()) << cfg.error().message;
    auto c = kube::client::create(io_.context(), *cfg);
    ASSERT_TRUE(c.ok()) << c.error().message;
    kube_client_ = *c;

    pve_client_ = std::make_shared<proxmox::client>(io_.context(), pve_.client_settings());

    caf_config_.set("scheduler.max-threads", 2);
    system_ = std::make_unique<caf::actor_system>(caf_config_);
    events_ = std::make_shared<event_box>();
    ctx_.events = system_->spawn(collector, events_);
    ctx_.kube = kube_client_;
    ctx_.cluster_name = "test-cluster";
    ctx_.settings.proxmox_inventory_interval = 1s;
    ctx_.settings.proxmox_task_poll_interval = 50ms;
    ctx_.settings.proxmox_download_timeout = 30s;
    ctx_.settings.proxmox_template_timeout = 30s;
    ctx_.metrics = std::make_shared<obs::karpenter_metrics>(registry_);
    // The one door to Proxmox: the builder asks the region actor, which owns the client.
    region::region_settings rs;
    rs.region = region_name;
    rs.cluster_name = "test-cluster";
    rs.refresh_interval = 30s;
    rs.clone_wait.initial_interval = 20ms;
    rs.clone_wait.max_interval = 200ms;
    rs.clone_wait.timeout = 30s;
    rs.start_wait = rs.download_wait = rs.template_wait = rs.clone_wait;
    region_ = region::spawn_region_actor(*system_, pve_client_, rs);
    caf::anon_send(region_, claimed_vmids{});  // no NodeClaims in this test
    ctx_.regions = {{region_name, region_}};
    builder_ = spawn_template_builder(*system_, ctx_);
  }

  double actor_failures() {
    return ctx_.metrics->actor_failures.Add({{"actor", "template_builder"}}).Value();
  }

  void TearDown() override {
    if (builder_) caf::anon_send_exit(builder_, caf::exit_reason::user_shutdown);
    if (region_) caf::anon_send_exit(region_, caf::exit_reason::user_shutdown);
    if (ctx_.events) caf::anon_send_exit(ctx_.events, caf::exit_reason::user_shutdown);
    builder_ = nullptr;
    region_ = nullptr;
    ctx_ = controller_context{};
    if (system_) system_->await_all_actors_done();
    if (pve_client_) pve_client_->close();
    io_.stop();
    system_.reset();
    kube_client_.reset();
    pve_client_.reset();
    kube_.reset();
  }

  void kubectl(const std::vector<std::string>& args, const std::string& input = "") {
    auto r = kube_->kubectl(args, input);
    ASSERT_EQ(r.exit_code, 0) << "kubectl failed: " << r.err;
  }

  snapshot_ptr take_snapshot() {
    kube::list_options o;
    auto r = await<kube::object_list<kube::proxmox_template>>(
        [&](auto done) { kube_client_->list<kube::proxmox_template>("", o, done); });
    EXPECT_TRUE(r.ok()) << r.error().message;
    auto s = std::make_shared<cluster_snapshot>();
    s->generation = ++generation_;
    s->synced = true;
    auto map = std::make_shared<object_map<kube::proxmox_template>>();
    if (r) {
      for (auto& t : r->items) {
        auto key = object_key_of(t);
        (*map)[key] = std::make_shared<const kube::proxmox_template>(std::move(t));
      }
    }
    s->templates = map;
    return s;
  }

  // Publishes snapshots until `done` holds for the template `name` (or the deadline passes).
  std::optional<kube::proxmox_template> drive(
      const std::string& name, const std::function<bool(const kube::proxmox_template&)>& done,
      std::chrono::seconds limit = 30s) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    std::optional<kube::proxmox_template> last;
    while (std::chrono::steady_clock::now() < deadline) {
      auto s = take_snapshot();
      if (const auto* t = cluster_snapshot::find(s->templates, name)) {
        last = *t;
        if (done(*t)) return last;
      }
      caf::anon_send(builder_, s);
      // Polling interval of the stand-in for cluster_state (it publishes on change, we poll).
      std::this_thread::sleep_for(150ms);
    }
    ADD_FAILURE() << "deadline passed for template " << name << "; last conditions: " << [&] {
      std::string out;
      if (last) {
        for (const auto& c : last->status.conditions) {
          out += c.type + "=" + c.status + " " + c.reason + ": " + c.message + "; ";
        }
      }
      return out;
    }();
    return std::nullopt;
  }

  // Publishes snapshots until `done` holds (or the deadline passes).
  bool drive_until(const std::function<bool()>& done, std::chrono::seconds limit = 30s) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (done()) return true;
      caf::anon_send(builder_, take_snapshot());
      std::this_thread::sleep_for(150ms);
    }
    return false;
  }

  std::vector<proxmox::cluster_resource> vms() {
    auto r = await<std::vector<proxmox::cluster_resource>>(
        [&](auto done) { pve_client_->cluster_resources(proxmox::resource_type::vm, done); });
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r ? *r : std::vector<proxmox::cluster_resource>{};
  }

  std::vector<proxmox::cluster_resource> vms_named(const std::string& name) {
    std::vector<proxmox::cluster_resource> out;
    for (auto& v : vms()) {
      if (v.type == "qemu" && v.name == name) out.push_back(v);
    }
    return out;
  }

  bool vm_exists(std::uint32_t vmid) {
    for (auto& v : vms()) {
      if (v.vmid == vmid) return true;
    }
    return false;
  }

  // Requests pve-sim has answered, by method and templated path (GET /sim/v1/stats).
  std::int64_t requests(const std::string& method, const std::string& path) {
    auto r = kp::sim::kube::testing::run_command(
        {curl_, "-sS", "--cacert", ca_file_, pve_.url() + "/sim/v1/stats"}, {}, "", 10s);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    auto counts = kp::test::request_counts(r.out);
    if (!counts.ok()) return -1;
    auto it = counts->find(method + " " + path);
    return it == counts->end() ? 0 : it->second;
  }

  // Waits until the actor has begun `n` more passes than now; passes never overlap, so every
  // pass before the last one has finished.
  void wait_for_passes(const std::string& name, int n) {
    auto start = requests("GET", "/cluster/resources");
    drive(name, [&](const kube::proxmox_template&) {
      return requests("GET", "/cluster/resources") >= start + n;
    });
  }

  std::unique_ptr<kube_sim_process> kube_;
  kp::test::pve_sim_process pve_;
  std::string ca_file_;
  std::string curl_;  // reads pve-sim's /sim/v1/stats
  transport::io_runtime io_{1};
  std::shared_ptr<kube::client> kube_client_;
  std::shared_ptr<proxmox::client> pve_client_;
  caf::actor_system_config caf_config_;
  std::unique_ptr<caf::actor_system> system_;
  controller_context ctx_;
  prometheus::Registry registry_;
  region_actor region_;
  snapshot_listener builder_;
  std::uint64_t generation_ = 0;
  std::shared_ptr<event_box> events_;
};

bool ready_on_three_hosts(const kube::proxmox_template& t) {
  return condition_is(t, "Ready", "True", "TemplatesReady") && t.status.zones.size() == 3;
}

TEST_F(TemplateBuilderSims, ATemplateBecomesATemplateVmOnEveryHostAndIsReady) {
  kubectl({"apply", "-f", "-"}, template_yaml("ubuntu", url_v1, sim_checksum(url_v1)));
  auto t = drive("ubuntu", ready_on_three_hosts);
  ASSERT_TRUE(t);
  EXPECT_TRUE(condition_is(*t, "ImageReady", "True"));
  EXPECT_EQ(t->status.zone_count, "3");
  EXPECT_FALSE(t->status.image_id.empty());

  auto found = vms_named("ubuntu");
  ASSERT_EQ(found.size(), 3u);
  std::vector<std::string> zones;
  for (const auto& v : found) {
    EXPECT_TRUE(v.template_) << v.vmid;
    zones.push_back(std::string(region_name) + "/" + v.node + "/" + std::to_string(v.vmid));
    auto cfg =
        await<proxmox::vm_config>([&](auto done) { pve_client_->vm_config(v.node, v.vmid, done); });
    ASSERT_TRUE(cfg.ok()) << cfg.error().message;
    auto mark = template_builder::parse_template_mark(cfg->description.value_or(""));
    ASSERT_TRUE(mark);
    EXPECT_EQ(mark->cluster, "test-cluster");
    EXPECT_EQ(mark->template_name, "ubuntu");
    EXPECT_EQ(mark->image, t->status.image_id);
    EXPECT_EQ(mark->checksum, "sha256:" + sim_checksum(url_v1));
    EXPECT_NE(cfg->raw["scsi0"].find("local-lvm:base-" + std::to_string(v.vmid) + "-disk-"),
              std::string::npos)
        << cfg->raw["scsi0"];
    EXPECT_NE(cfg->raw["net0"].find("bridge=vmbr0"), std::string::npos);
    EXPECT_TRUE(cfg->agent_enabled());
  }
  std::sort(zones.begin(), zones.end());
  EXPECT_EQ(t->status.zones, zones);

  // More passes find the same VMs by their mark and build nothing more.
  wait_for_passes("ubuntu", 3);
  EXPECT_EQ(vms_named("ubuntu").size(), 3u);
  EXPECT_EQ(requests("POST", "/nodes/{node}/qemu"), 3);
  EXPECT_EQ(requests("POST", "/nodes/{node}/storage/{storage}/download-url"), 3);

  // A restarted controller finds them too (by the mark in their descriptions).
  caf::anon_send_exit(builder_, caf::exit_reason::user_shutdown);
  builder_ = spawn_template_builder(*system_, ctx_);
  wait_for_passes("ubuntu", 2);
  EXPECT_EQ(vms_named("ubuntu").size(), 3u);
  EXPECT_EQ(requests("POST", "/nodes/{node}/qemu"), 3);
  EXPECT_EQ(requests("POST", "/nodes/{node}/qemu/{vmid}/template"), 3);
  // VMIDs come from the region's allocator, never from a nextid of the builder's own.
  EXPECT_EQ(requests("GET", "/cluster/nextid"), 0);
}

TEST_F(TemplateBuilderSims, AThrowWhileHandlingOneTemplateIsCountedAndLeavesTheOthersBuilding) {
  // The clock throws the first time it is read: while the first template's status is computed.
  caf::anon_send_exit(builder_, caf::exit_reason::user_shutdown);
  auto reads = std::make_shared<std::atomic<int>>(0);
  auto ctx = ctx_;
  ctx.wall_clock_ms = [reads]() -> std::int64_t {
    if (reads->fetch_add(1) == 0) throw std::runtime_error("clock failure injected by the test");
    return 1'700'000'000'000;
  };
  kubectl({"apply", "-f", "-"}, template_yaml("a-first", url_v1, sim_checksum(url_v1)) + "---\n" +
                                    template_yaml("b-second", url_v1, sim_checksum(url_v1)));
  builder_ = spawn_template_builder(*system_, ctx);
  ASSERT_TRUE(drive("b-second", ready_on_three_hosts));
  // The actor lives on and the template whose handling threw is built as well.
  ASSERT_TRUE(drive("a-first", ready_on_three_hosts));
  EXPECT_EQ(actor_failures(), 1.0);
  EXPECT_EQ(vms_named("a-first").size(), 3u);
  EXPECT_EQ(vms_named("b-second").size(), 3u);
}

TEST_F(TemplateBuilderSims, TheTemplateVmsOfADeletedTemplateAreDestroyed) {
  kubectl({"apply", "-f", "-"}, template_yaml("ubuntu", url_v1, sim_checksum(url_v1)));
  ASSERT_TRUE(drive("ubuntu", ready_on_three_hosts));
  auto built = vms_named("ubuntu");
  ASSERT_EQ(built.size(), 3u);
  kubectl({"delete", "proxmoxtemplate", "ubuntu"});
  EXPECT_TRUE(drive_until([&] {
    for (const auto& v : built) {
      if (vm_exists(v.vmid)) return false;
    }
    return true;
  }));
  // The simulator's own templates carry no mark of ours and stay.
  EXPECT_EQ(vms_named("k8s-template").size(), 3u);
}

TEST_F(TemplateBuilderSims, AWrongChecksumGivesAClearConditionAndNoVm) {
  kubectl({"apply", "-f", "-"}, template_yaml("broken", url_v1, std::string(64, 'a')));
  auto t = drive("broken", [](const kube::proxmox_template& t) {
    return condition_is(t, "ImageReady", "False", "DownloadFailed");
  });
  ASSERT_TRUE(t);
  const auto* c = condition_of(*t, "ImageReady");
  EXPECT_NE(c->message.find(std::string("download of ") + url_v1), std::string::npos) << c->message;
  EXPECT_NE(c->message.find("checksum mismatch"), std::string::npos) << c->message;
  EXPECT_TRUE(condition_is(*t, "Ready", "False", "DownloadFailed"));
  EXPECT_TRUE(t->status.zones.empty());
  EXPECT_TRUE(vms_named("broken").empty());
  EXPECT_TRUE(events_->has("broken", "DownloadFailed"));
}

TEST_F(TemplateBuilderSims, AnUnreachableImportStorageGivesAClearConditionAndNoVm) {
  auto r = kp::sim::kube::testing::run_command(
      {curl_, "-sS", "-X", "PUT", "--cacert", ca_file_, "-H", "Content-Type: application/json",
       "--data", R"({"unreachable_storages": [{"node": "*", "storage": "local"}]})",
       pve_.url() + "/sim/v1/faults"},
      {}, "", 10s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  kubectl({"apply", "-f", "-"}, template_yaml("ubuntu", url_v1, sim_checksum(url_v1)));
  auto t = drive("ubuntu", [](const kube::proxmox_template& t) {
    return condition_is(t, "Ready", "False", "StorageNotFound");
  });
  ASSERT_TRUE(t);
  const auto& message = condition_of(*t, "Ready")->message;
  EXPECT_NE(message.find("pve-sim/pve1: none of storageIDs [local-lvm, local] on pve1 is active "
                         "with import content"),
            std::string::npos)
      << message;
  EXPECT_TRUE(vms_named("ubuntu").empty());
}

TEST_F(TemplateBuilderSims, ARefusedSpecGivesAConditionAndAnEventAndNoVm) {
  kubectl({"apply", "-f", "-"},
          template_yaml("packed", url_v1, sim_checksum(url_v1), "noble.img.xz"));
  auto t = drive("packed", [](const kube::proxmox_template& t) {
    return condition_is(t, "Ready", "False", "InvalidSpec");
  });
  ASSERT_TRUE(t);
  EXPECT_NE(condition_of(*t, "Ready")->message.find("compressed images are not supported"),
            std::string::npos);
  EXPECT_TRUE(events_->has("packed", "InvalidSpec"));
  EXPECT_TRUE(vms_named("packed").empty());
  EXPECT_EQ(requests("POST", "/nodes/{node}/storage/{storage}/download-url"), 0);
}

TEST_F(TemplateBuilderSims, AChangedImageBuildsNewTemplatesAndRetiresTheOldOnes) {
  kubectl({"apply", "-f", "-"}, template_yaml("ubuntu", url_v1, sim_checksum(url_v1)));
  auto v1 = drive("ubuntu", ready_on_three_hosts);
  ASSERT_TRUE(v1);
  std::map<std::string, std::uint32_t> old;  // host -> vmid
  for (const auto& v : vms_named("ubuntu")) old[v.node] = v.vmid;
  ASSERT_EQ(old.size(), 3u);

  // A node VM linked-cloned from the old template on pve1 keeps that template alive.
  auto clone_id =
      await<std::uint32_t>([&](auto done) { pve_client_->next_vmid(std::nullopt, done); });
  ASSERT_TRUE(clone_id.ok());
  proxmox::clone_request cr;
  cr.node = "pve1";
  cr.source_vmid = old["pve1"];
  cr.new_vmid = *clone_id;
  cr.name = "node-a";
  cr.full = false;
  auto task = await<proxmox::upid>([&](auto done) { pve_client_->clone_vm(cr, done); });
  ASSERT_TRUE(task.ok()) << task.error().message;
  proxmox::task_wait_options wo;
  wo.initial_interval = 20ms;
  wo.max_interval = 100ms;
  wo.timeout = 20s;
  auto cloned =
      await<proxmox::task_status>([&](auto done) { pve_client_->wait_task(*task, wo, done); });
  ASSERT_TRUE(cloned.ok()) << cloned.error().message;

  kubectl({"apply", "-f", "-"}, template_yaml("ubuntu", url_v2, sim_checksum(url_v2)));
  auto v2 = drive("ubuntu", [&](const kube::proxmox_template& t) {
    if (!ready_on_three_hosts(t) || t.status.image_id == v1->status.image_id) return false;
    // pve2 and pve3 lose their old template; pve1 keeps it, retired, while the clone lives.
    return !vm_exists(old["pve2"]) && !vm_exists(old["pve3"]);
  });
  ASSERT_TRUE(v2);
  EXPECT_TRUE(condition_is(*v2, "ImageReady", "True"));
  auto current = vms_named("ubuntu");
  ASSERT_EQ(current.size(), 3u);
  for (const auto& v : current) EXPECT_NE(old[v.node], v.vmid);
  auto retired = vms_named("ubuntu-retired-" + std::to_string(old["pve1"]));
  ASSERT_EQ(retired.size(), 1u);
  EXPECT_TRUE(retired[0].template_);
  EXPECT_NE(retired[0].tags.find("karpenter-retired"), std::string::npos);
  EXPECT_EQ(v2->status.zones.size(), 3u);

  // Once the clone is gone, the retired template goes too.
  auto del = await<proxmox::upid>(
      [&](auto done) { pve_client_->delete_vm("pve1", *clone_id, true, done); });
  ASSERT_TRUE(del.ok()) << del.error().message;
  auto deleted =
      await<proxmox::task_status>([&](auto done) { pve_client_->wait_task(*del, wo, done); });
  ASSERT_TRUE(deleted.ok()) << deleted.error().message;
  EXPECT_TRUE(
      drive("ubuntu", [&](const kube::proxmox_template&) { return !vm_exists(old["pve1"]); }));
  EXPECT_EQ(vms_named("ubuntu").size(), 3u);
}

}  // namespace
}  // namespace kp::actors
