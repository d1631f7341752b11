// The client against pve-sim started as a real process (TLS with its own CA): a VM's whole life,
// ticket auth, and every injected fault the client must turn into a typed error.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <sstream>

#include "core/cloudinit/nocloud_iso.hpp"
#include "protocol/proxmox/client.hpp"
#include "protocol/transport/http_client.hpp"
#include "protocol/transport/io_runtime.hpp"
#include "test/support/await_completion.hpp"
#include "test/support/pve_sim_process.hpp"

namespace kp::proxmox {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

using kp::test::pve_sim_process;

template <class T, class Start>
result<T> await(Start start, std::chrono::seconds limit = 30s) {
  return kp::test_support::await_completion<T>(std::move(start), limit);
}

template <class Start>
status await_status(Start start) {
  auto done = std::make_shared<std::promise<status>>();
  auto future = done->get_future();
  start([done](status s) { done->set_value(std::move(s)); });
  if (future.wait_for(30s) != std::future_status::ready) return make_error("test_timeout", "");
  return future.get();
}

class PveSimTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!fs::exists(pve_sim_process::binary())) return;
    sim_ = new pve_sim_process();
    start_status_ = new status(sim_->start());
  }
  static void TearDownTestSuite() {
    delete sim_;
    sim_ = nullptr;
    delete start_status_;
    start_status_ = nullptr;
  }

  void SetUp() override {
    if (sim_ == nullptr) {
      GTEST_SKIP() << "pve-sim is not built (looked for " << pve_sim_process::binary()
                   << "; it comes from sim/pve and cmd/pve-sim)";
    }
    ASSERT_TRUE(start_status_->ok()) << start_status_->error().message;
    clear_faults();
  }
  void TearDown() override {
    if (sim_ != nullptr && start_status_->ok()) clear_faults();
  }

  client_settings settings(bool ticket = false) {
    using login = test::pve_sim_process::login;
    return sim_->client_settings(ticket ? login::root_ticket : login::token);
  }
  client& api(bool ticket = false) {
    auto& slot = ticket ? ticket_client_ : token_client_;
    if (!slot) slot = std::make_unique<client>(io_.context(), settings(ticket));
    return *slot;
  }

  // /sim/v1/faults takes plain JSON (no envelope, no auth).
  status put_faults(const std::string& method, const std::string& body) {
    transport::http_client http(io_.context(), sim_->transport_options());
    transport::http_request req;
    req.method = method;
    req.target = "/sim/v1/faults";
    req.headers.emplace_back("Content-Type", "application/json");
    req.body = body;
    auto r = await<transport::http_response>([&](auto cb) { http.send(sim_->url(), req, cb); });
    if (!r) return r.error();
    if (r->status != 200) return make_error("faults", std::to_string(r->status) + " " + r->body);
    return {};
  }
  void clear_faults() { ASSERT_TRUE(put_faults("DELETE", "").ok()); }

  // The template named k8s-template on `node`.
  std::uint32_t template_on(const std::string& node) {
    auto vms = await<std::vector<cluster_resource>>(
        [&](auto cb) { api().cluster_resources(resource_type::vm, cb); });
    if (!vms) return 0;
    for (const auto& vm : *vms) {
      if (vm.name == "k8s-template" && vm.template_ && vm.node == node) return vm.vmid;
    }
    return 0;
  }

  struct cloning {
    upid task;
    std::uint32_t vmid;
  };
  result<cloning> clone_from_template(const std::string& node, const std::string& name,
                                      bool ticket = false) {
    auto source = template_on(node);
    if (source == 0) return make_error("test", "no k8s-template on " + node);
    auto id = await<std::uint32_t>([&](auto cb) { api(ticket).next_vmid(std::nullopt, cb); });
    if (!id) return id.error();
    clone_request r;
    r.node = node;
    r.source_vmid = source;
    r.new_vmid = *id;
    r.name = name;
    r.description = "karpenter-proxmox: cluster=test, nodeclaim=" + name + ", nodepool=default";
    r.full = true;
    auto task = await<upid>([&](auto cb) { api(ticket).clone_vm(r, cb); });
    if (!task) return task.error();
    return cloning{*task, *id};
  }

  result<task_status> wait(const upid& task, std::chrono::milliseconds timeout = 20s,
                           bool ticket = false) {
    task_wait_options o;
    o.timeout = timeout;
    o.initial_interval = 50ms;
    o.max_interval = 500ms;
    return await<task_status>([&](auto cb) { api(ticket).wait_task(task, o, cb); });
  }

  static pve_sim_process* sim_;
  static status* start_status_;
  transport::io_runtime io_{2};
  std::unique_ptr<client> token_client_;
  std::unique_ptr<client> ticket_client_;
};

pve_sim_process* PveSimTest::sim_ = nullptr;
status* PveSimTest::start_status_ = nullptr;

TEST_F(PveSimTest, AVmIsClonedConfiguredStartedRefusedDeletionWhileRunningStoppedAndDeleted) {
  auto& c = api();
  auto version = await<version_info>([&](auto cb) { c.version(cb); });
  ASSERT_TRUE(version.ok()) << version.error().message;

  auto cloning = clone_from_template("pve1", "itest-lifecycle");
  ASSERT_TRUE(cloning.ok()) << cloning.error().message;
  EXPECT_EQ(cloning->task.type, "qmclone");
  auto cloned = wait(cloning->task);
  ASSERT_TRUE(cloned.ok()) << cloned.error().message;
  const std::uint32_t id = cloning->vmid;
  auto before = await<kp::proxmox::vm_config>([&](auto cb) { c.vm_config("pve1", id, cb); });
  ASSERT_TRUE(before.ok()) << before.error().message;
  vm_config_update u;
  u.cores = 2;
  u.memory_mib = 2048;
  u.tags = std::vector<std::string>{"Karpenter", "itest"};
  u.smbios =
      smbios1{before->smbios ? before->smbios->uuid : "", "", "", "", "h=itest", "c2-m2", ""};
  if (!before->nets.empty()) {
    auto net = before->nets.begin()->second;
    net.queues = 2;
    u.nets[before->nets.begin()->first] = net;
  }
  u.digest = before->digest;
  auto configuring =
      await<std::optional<upid>>([&](auto cb) { c.update_vm_config("pve1", id, u, cb); });
  ASSERT_TRUE(configuring.ok()) << configuring.error().message;
  if (configuring->has_value()) {
    {
      auto waited = wait(**configuring);
      ASSERT_TRUE(waited.ok()) << waited.error().message;
    }
  }
  auto after = await<kp::proxmox::vm_config>([&](auto cb) { c.vm_config("pve1", id, cb); });
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_EQ(after->cores, 2u);
  EXPECT_EQ(after->memory_mib, 2048u);
  EXPECT_EQ(after->tags, (std::vector<std::string>{"itest", "karpenter"}));
  ASSERT_TRUE(after->smbios.has_value());
  EXPECT_EQ(after->smbios->sku, "c2-m2");
  if (!after->nets.empty()) {
    EXPECT_EQ(after->nets.begin()->second.queues, 2u);
  }

  // The cloud-init ISO, uploaded and attached as a CD-ROM.
  cloudinit::nocloud_files files{"#cloud-config\n", "instance-id: itest\n", std::nullopt,
                                 std::nullopt};
  auto iso = cloudinit::write_nocloud_iso(files);
  ASSERT_TRUE(iso.ok()) << iso.error().message;
  iso_upload up;
  up.node = "pve1";
  up.storage = "local";
  up.filename = "user-data-" + std::to_string(id) + ".iso";
  up.data = *iso;
  auto uploading = await<upid>([&](auto cb) { c.upload(up, cb); });
  ASSERT_TRUE(uploading.ok()) << uploading.error().message;
  {
    auto waited = wait(*uploading);
    ASSERT_TRUE(waited.ok()) << waited.error().message;
  }
  auto content = await<std::vector<kp::proxmox::storage_content>>(
      [&](auto cb) { c.storage_content("pve1", "local", "iso", cb); });
  ASSERT_TRUE(content.ok()) << content.error().message;
  const std::string volid = "local:iso/" + up.filename;
  bool listed = false;
  for (const auto& v : *content) listed |= v.volid == volid && v.size == iso->size();
  EXPECT_TRUE(listed) << volid << " is not in the storage content";
  vm_config_update attach;
  attach.drives["ide2"] = cdrom_drive(volid);
  auto attaching =
      await<std::optional<upid>>([&](auto cb) { c.update_vm_config("pve1", id, attach, cb); });
  ASSERT_TRUE(attaching.ok()) << attaching.error().message;
  if (attaching->has_value()) {
    {
      auto waited = wait(**attaching);
      ASSERT_TRUE(waited.ok()) << waited.error().message;
    }
  }

  auto starting = await<upid>([&](auto cb) { c.start_vm("pve1", id, cb); });
  ASSERT_TRUE(starting.ok()) << starting.error().message;
  {
    auto waited = wait(*starting);
    ASSERT_TRUE(waited.ok()) << waited.error().message;
  }
  auto running = await<kp::proxmox::vm_status>([&](auto cb) { c.vm_status("pve1", id, cb); });
  ASSERT_TRUE(running.ok()) << running.error().message;
  EXPECT_EQ(running->status, "running");

  auto refused = await<upid>([&](auto cb) { c.delete_vm("pve1", id, true, cb); });
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, "conflict") << refused.error().message;

  auto stopping = await<upid>([&](auto cb) { c.stop_vm("pve1", id, cb); });
  ASSERT_TRUE(stopping.ok()) << stopping.error().message;
  {
    auto waited = wait(*stopping);
    ASSERT_TRUE(waited.ok()) << waited.error().message;
  }
  auto stopped = await<kp::proxmox::vm_status>([&](auto cb) { c.vm_status("pve1", id, cb); });
  ASSERT_TRUE(stopped.ok());
  EXPECT_EQ(stopped->status, "stopped");

  auto deleting = await<upid>([&](auto cb) { c.delete_vm("pve1", id, true, cb); });
  ASSERT_TRUE(deleting.ok()) << deleting.error().message;
  {
    auto waited = wait(*deleting);
    ASSERT_TRUE(waited.ok()) << waited.error().message;
  }
  auto gone = await<kp::proxmox::vm_status>([&](auto cb) { c.vm_status("pve1", id, cb); });
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().code, "not_found") << gone.error().message;

  auto removing =
      await<std::optional<upid>>([&](auto cb) { c.delete_volume("pve1", "local", volid, cb); });
  ASSERT_TRUE(removing.ok()) << removing.error().message;
  if (removing->has_value()) {
    {
      auto waited = wait(**removing);
      EXPECT_TRUE(waited.ok()) << waited.error().message;
    }
  }
}

TEST_F(PveSimTest, ADownloadedImageBecomesATemplateThatLinkedClonesUse) {
  auto& c = api();
  download_url_request d;
  d.node = "pve1";
  d.storage = "local";
  d.content = "import";
  d.filename = "itest-image.raw";
  d.url = "https://images.example.invalid/itest-image.raw";
  d.verify_certificates = false;
  auto downloading = await<upid>([&](auto cb) { c.download_url(d, cb); });
  ASSERT_TRUE(downloading.ok()) << downloading.error().message;
  {
    auto waited = wait(*downloading);
    ASSERT_TRUE(waited.ok()) << waited.error().message;
  }
  auto imports = await<std::vector<kp::proxmox::storage_content>>(
      [&](auto cb) { c.storage_content("pve1", "local", "import", cb); });
  ASSERT_TRUE(imports.ok()) << imports.error().message;
  bool found = false;
  for (const auto& v : *imports) found |= v.volid == "local:import/itest-image.raw";
  ASSERT_TRUE(found);

  auto id = await<std::uint32_t>([&](auto cb) { c.next_vmid(std::nullopt, cb); });
  ASSERT_TRUE(id.ok()) << id.error().message;
  create_vm_request create;
  create.node = "pve1";
  create.vmid = *id;
  drive disk;
  disk.volume = "local-lvm:0";
  disk.options = {{"format", "raw"}, {"import-from", "local:import/itest-image.raw"}};
  create.config = {{"name", "itest-template"},
                   {"memory", "1024"},
                   {"cores", "1"},
                   {"scsi0", format_drive(disk)},
                   {"net0", "virtio,bridge=vmbr0"},
                   {"agent", "1"}};
  auto creating = await<upid>([&](auto cb) { c.create_vm(create, cb); });
  ASSERT_TRUE(creating.ok()) << creating.error().message;
  {
    auto waited = wait(*creating);
    ASSERT_TRUE(waited.ok()) << waited.error().message;
  }
  auto converting = await<upid>([&](auto cb) { c.convert_to_template("pve1", *id, cb); });
  ASSERT_TRUE(converting.ok()) << converting.error().message;
  {
    auto waited = wait(*converting);
    ASSERT_TRUE(waited.ok()) << waited.error().message;
  }
  auto cfg = await<kp::proxmox::vm_config>([&](auto cb) { c.vm_config("pve1", *id, cb); });
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_TRUE(cfg->is_template);

  auto linked_id = await<std::uint32_t>([&](auto cb) { c.next_vmid(std::nullopt, cb); });
  ASSERT_TRUE(linked_id.ok());
  clone_request linked;
  linked.node = "pve1";
  linked.source_vmid = *id;
  linked.new_vmid = *linked_id;
  linked.name = "itest-linked";
  linked.full = false;
  auto cloning = await<upid>([&](auto cb) { c.clone_vm(linked, cb); });
  ASSERT_TRUE(cloning.ok()) << cloning.error().message;
  {
    auto waited = wait(*cloning);
    ASSERT_TRUE(waited.ok()) << waited.error().message;
  }
  for (auto vmid : {*linked_id, *id}) {
    auto deleting = await<upid>([&](auto cb) { c.delete_vm("pve1", vmid, true, cb); });
    ASSERT_TRUE(deleting.ok()) << deleting.error().message;
    auto waited = wait(*deleting);
    EXPECT_TRUE(waited.ok()) << waited.error().message;
  }
}

TEST_F(PveSimTest, FirewallPoolsResizeAndTheGuestAgentWorkOnARunningVm) {
  auto& c = api();
  auto cloning = clone_from_template("pve3", "itest-agent");
  ASSERT_TRUE(cloning.ok()) << cloning.error().message;
  {
    auto waited = wait(cloning->task);
    ASSERT_TRUE(waited.ok()) << waited.error().message;
  }
  const auto id = cloning->vmid;

  kp::proxmox::firewall_options fw;
  fw.enable = true;
  fw.dhcp = true;
  fw.ipfilter = false;
  fw.policy_in = "DROP";
  fw.policy_out = "ACCEPT";
  auto set_fw = await_status([&](auto cb) { c.set_firewall_options("pve3", id, fw, cb); });
  ASSERT_TRUE(set_fw.ok()) << set_fw.error().message;
  auto got_fw =
      await<kp::proxmox::firewall_options>([&](auto cb) { c.firewall_options("pve3", id, cb); });
  ASSERT_TRUE(got_fw.ok()) << got_fw.error().message;
  EXPECT_EQ(got_fw->enable, true);
  EXPECT_EQ(got_fw->policy_in, "DROP");
  firewall_rule rule;
  rule.type = "group";
  rule.action = "kubernetes";
  rule.iface = "net0";
  rule.enable = true;
  auto added = await_status([&](auto cb) { c.add_firewall_rule("pve3", id, rule, cb); });
  ASSERT_TRUE(added.ok()) << added.error().message;
  auto rules =
      await<std::vector<firewall_rule>>([&](auto cb) { c.firewall_rules("pve3", id, cb); });
  ASSERT_TRUE(rules.ok()) << rules.error().message;
  ASSERT_FALSE(rules->empty());
  EXPECT_EQ(rules->front().action, "kubernetes");
  EXPECT_EQ(rules->front().enable, true);

  auto pool_made = await_status([&](auto cb) { c.create_pool("itest-pool", "test pool", cb); });
  ASSERT_TRUE(pool_made.ok()) << pool_made.error().message;
  auto pools = await<std::vector<pool_info>>([&](auto cb) { c.pools(cb); });
  ASSERT_TRUE(pools.ok()) << pools.error().message;
  bool pool_listed = false;
  for (const auto& p : *pools) pool_listed |= p.poolid == "itest-pool";
  EXPECT_TRUE(pool_listed);
  auto duplicate = await_status([&](auto cb) { c.create_pool("itest-pool", "", cb); });
  EXPECT_FALSE(duplicate.ok());

  auto cfg = await<kp::proxmox::vm_config>([&](auto cb) { c.vm_config("pve3", id, cb); });
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  std::string disk;
  for (const char* name : {"virtio0", "scsi0", "sata0", "ide0"}) {
    if (disk.empty() && cfg->drives.count(name) != 0) disk = name;
  }
  ASSERT_FALSE(disk.empty());
  auto resizing =
      await<std::optional<upid>>([&](auto cb) { c.resize_disk("pve3", id, disk, "+1G", cb); });
  ASSERT_TRUE(resizing.ok()) << resizing.error().message;
  if (resizing->has_value()) {
    auto waited = wait(**resizing);
    ASSERT_TRUE(waited.ok()) << waited.error().message;
  }

  if (!cfg->agent_enabled()) {
    vm_config_update agent;
    agent.agent = "1";
    auto set =
        await<std::optional<upid>>([&](auto cb) { c.update_vm_config("pve3", id, agent, cb); });
    ASSERT_TRUE(set.ok()) << set.error().message;
    if (set->has_value()) {
      auto waited = wait(**set);
      ASSERT_TRUE(waited.ok()) << waited.error().message;
    }
  }
  auto not_running = await_status([&](auto cb) { c.agent_ping("pve3", id, cb); });
  ASSERT_FALSE(not_running.ok());
  EXPECT_EQ(not_running.error().code, "conflict") << not_running.error().message;

  auto starting = await<upid>([&](auto cb) { c.start_vm("pve3", id, cb); });
  ASSERT_TRUE(starting.ok()) << starting.error().message;
  {
    auto waited = wait(*starting);
    ASSERT_TRUE(waited.ok()) << waited.error().message;
  }
  // The agent answers once the guest has booted: poll with a deadline, 50 ms apart.
  status ping = make_error("test", "not pinged");
  auto deadline = std::chrono::steady_clock::now() + 30s;
  std::mutex mu;
  std::condition_variable never;
  while (std::chrono::steady_clock::now() < deadline) {
    ping = await_status([&](auto cb) { c.agent_ping("pve3", id, cb); });
    if (ping.ok() || ping.error().code != "agent_unavailable") break;
    std::unique_lock lock(mu);
    never.wait_for(lock, 50ms);
  }
  ASSERT_TRUE(ping.ok()) << ping.error().message;
  auto pid = await<int>([&](auto cb) { c.agent_exec("pve3", id, {"bash", "-c", "true"}, "", cb); });
  ASSERT_TRUE(pid.ok()) << pid.error().message;
  auto exec = await<kp::proxmox::agent_exec_status>(
      [&](auto cb) { c.agent_exec_status("pve3", id, *pid, cb); });
  ASSERT_TRUE(exec.ok()) << exec.error().message;
  if (exec->exited) {
    EXPECT_TRUE(exec->exitcode.has_value());
  }

  auto shutting = await<upid>([&](auto cb) { c.shutdown_vm("pve3", id, 5, true, cb); });
  ASSERT_TRUE(shutting.ok()) << shutting.error().message;
  {
    auto waited = wait(*shutting);
    ASSERT_TRUE(waited.ok()) << waited.error().message;
  }
  auto deleting = await<upid>([&](auto cb) { c.delete_vm("pve3", id, true, cb); });
  ASSERT_TRUE(deleting.ok()) << deleting.error().message;
  auto waited = wait(*deleting);
  EXPECT_TRUE(waited.ok()) << waited.error().message;
}

TEST_F(PveSimTest, TicketAuthAsRootMaySetAffinityWhichATokenMayNot) {
  auto& root = api(true);
  auto version = await<version_info>([&](auto cb) { root.version(cb); });
  ASSERT_TRUE(version.ok()) << version.error().message;
  auto cloning = clone_from_template("pve2", "itest-affinity", true);
  ASSERT_TRUE(cloning.ok()) << cloning.error().message;
  {
    auto waited = wait(cloning->task, 20s, true);
    ASSERT_TRUE(waited.ok()) << waited.error().message;
  }
  const std::uint32_t id = cloning->vmid;
  vm_config_update u;
  u.affinity = std::vector<unsigned>{0, 1, 2, 3, 16, 17};
  u.numa = true;
  u.numa_nodes[0] = numa_node{{0, 1}, {0}, std::nullopt, "bind"};
  auto set = await<std::optional<upid>>([&](auto cb) { root.update_vm_config("pve2", id, u, cb); });
  ASSERT_TRUE(set.ok()) << set.error().message;
  if (set->has_value()) {
    {
      auto waited = wait(**set, 20s, true);
      ASSERT_TRUE(waited.ok()) << waited.error().message;
    }
  }
  auto cfg = await<kp::proxmox::vm_config>([&](auto cb) { root.vm_config("pve2", id, cb); });
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->affinity, (std::vector<unsigned>{0, 1, 2, 3, 16, 17}));
  EXPECT_EQ(cfg->raw.at("affinity"), "0-3,16-17");
  EXPECT_EQ(root.logins(), 1u);

  // A token may not: refused before sending; and the server refuses a raw attempt too.
  auto token_try =
      await<std::optional<upid>>([&](auto cb) { api().update_vm_config("pve2", id, u, cb); });
  ASSERT_FALSE(token_try.ok());
  EXPECT_EQ(token_try.error().code, "forbidden");
  auto raw = await<std::string>([&](auto cb) {
    api().call("POST", "/nodes/pve2/qemu/" + std::to_string(id) + "/config", {{"affinity", "0-1"}},
               cb);
  });
  ASSERT_FALSE(raw.ok());
  EXPECT_EQ(raw.error().code, "forbidden") << raw.error().message;

  auto deleting = await<upid>([&](auto cb) { root.delete_vm("pve2", id, true, cb); });
  ASSERT_TRUE(deleting.ok()) << deleting.error().message;
  {
    auto waited = wait(*deleting, 20s, true);
    EXPECT_TRUE(waited.ok()) << waited.error().message;
  }
}

TEST_F(PveSimTest, AWrongTokenSecretIsUnauthorized) {
  auto s = settings();
  s.credentials =
      token_credentials{pve_sim_process::token_id, "00000000-0000-0000-0000-000000000000"};
  client c(io_.context(), s);
  auto v = await<version_info>([&](auto cb) { c.version(cb); });
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().code, "unauthorized");
  EXPECT_EQ(v.error().message.find("00000000-0000"), std::string::npos);
}

TEST_F(PveSimTest, InjectedErrorsAreTypedAndCountedFaultsRunOut) {
  ASSERT_TRUE(put_faults("PUT", R"({"errors":[{"path":"/version","method":"GET","status":503,)"
                                R"("message":"injected","count":1}]})")
                  .ok());
  auto first = await<version_info>([&](auto cb) { api().version(cb); });
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.error().code, "unavailable");
  auto second = await<version_info>([&](auto cb) { api().version(cb); });
  EXPECT_TRUE(second.ok()) << second.error().message;
}

TEST_F(PveSimTest, AnOfflineHostIsHostOffline) {
  ASSERT_TRUE(put_faults("PUT", R"({"offline_hosts":[{"node":"pve3","status":595}]})").ok());
  auto s = await<node_status>([&](auto cb) { api().node_status("pve3", cb); });
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, "host_offline") << s.error().message;
  auto other = await<node_status>([&](auto cb) { api().node_status("pve1", cb); });
  ASSERT_TRUE(other.ok()) << other.error().message;
  EXPECT_GT(other->cpuinfo.cpus, 0u);
}

TEST_F(PveSimTest, AFailingTaskIsATypedTaskFailure) {
  ASSERT_TRUE(
      put_faults("PUT",
                 R"({"failing_tasks":[{"type":"qmclone","message":"clone failed: injected"}]})")
          .ok());
  auto cloning = clone_from_template("pve3", "itest-failing");
  ASSERT_TRUE(cloning.ok()) << cloning.error().message;
  auto outcome = wait(cloning->task);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code, "task_failed");
  EXPECT_NE(outcome.error().message.find("injected"), std::string::npos) << outcome.error().message;
}

TEST_F(PveSimTest, ASlowTaskRunsIntoTheWaitersDeadline) {
  ASSERT_TRUE(put_faults("PUT", R"({"slow_clone_factor":1000})").ok());
  auto cloning = clone_from_template("pve3", "itest-slow");
  ASSERT_TRUE(cloning.ok()) << cloning.error().message;
  auto started = std::chrono::steady_clock::now();
  auto outcome = wait(cloning->task, 400ms);
  auto took = std::chrono::steady_clock::now() - started;
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code, "timeout");
  EXPECT_GE(took, 400ms);
  EXPECT_LT(took, 5s);
}

TEST_F(PveSimTest, AddedLatencyDelaysRepliesButTheyStillArrive) {
  ASSERT_TRUE(
      put_faults("PUT", R"({"latency":[{"path":"/version","method":"GET","ms":300}]})").ok());
  auto started = std::chrono::steady_clock::now();
  auto v = await<version_info>([&](auto cb) { api().version(cb); });
  auto took = std::chrono::steady_clock::now() - started;
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_GE(took, 300ms);
}

TEST_F(PveSimTest, AnUnreachableStorageRefusesUploadsWithATypedError) {
  ASSERT_TRUE(
      put_faults("PUT", R"({"unreachable_storages":[{"node":"pve2","storage":"local"}]})").ok());
  cloudinit::nocloud_files files{"#cloud-config\n", "instance-id: unreachable\n", std::nullopt,
                                 std::nullopt};
  auto iso = cloudinit::write_nocloud_iso(files);
  ASSERT_TRUE(iso.ok()) << iso.error().message;
  iso_upload up;
  up.node = "pve2";
  up.storage = "local";
  up.filename = "user-data-unreachable.iso";
  up.data = *iso;
  auto uploading = await<upid>([&](auto cb) { api().upload(up, cb); });
  // Proxmox refuses at once or fails the upload task; either way the caller gets an error
  // naming the storage, never a silent success.
  std::string why;
  if (!uploading.ok()) {
    why = uploading.error().message;
  } else {
    auto waited = wait(*uploading);
    ASSERT_FALSE(waited.ok()) << "the upload to an unreachable storage succeeded";
    why = waited.error().message;
  }
  EXPECT_NE(why.find("not online"), std::string::npos) << why;
}

TEST_F(PveSimTest, ClusterInventoryDecodes) {
  auto nodes = await<std::vector<cluster_resource>>(
      [&](auto cb) { api().cluster_resources(resource_type::node, cb); });
  ASSERT_TRUE(nodes.ok()) << nodes.error().message;
  EXPECT_EQ(nodes->size(), 3u);
  auto storages = await<std::vector<storage_info>>([&](auto cb) { api().storages("pve1", cb); });
  ASSERT_TRUE(storages.ok()) << storages.error().message;
  bool iso_storage = false;
  for (const auto& s : *storages) iso_storage |= s.content.find("iso") != std::string::npos;
  EXPECT_TRUE(iso_storage);
  auto network =
      await<std::vector<network_interface>>([&](auto cb) { api().node_network("pve1", cb); });
  ASSERT_TRUE(network.ok()) << network.error().message;
  bool bridge = false;
  for (const auto& n : *network) bridge |= n.iface == "vmbr0";
  EXPECT_TRUE(bridge);
  auto groups = await<std::vector<firewall_group>>([&](auto cb) { api().firewall_groups(cb); });
  ASSERT_TRUE(groups.ok()) << groups.error().message;
  bool kubernetes = false;
  for (const auto& g : *groups) kubernetes |= g.group == "kubernetes";
  EXPECT_TRUE(kubernetes);
}

}  // namespace
}  // namespace kp::proxmox
