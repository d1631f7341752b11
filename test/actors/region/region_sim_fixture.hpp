#pragma once
// The fixture of the region actor's pve-sim tests: pve-sim as a real process, CAF's normal
// scheduler and one io thread (the client's completions come back to the actor as messages);
// waits are bounded request timeouts, never sleeps. Header-only, for the test files beside it.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <sstream>

#include <caf/all.hpp>

#include "actors/region/region_actor.hpp"
#include "core/cloudinit/nocloud_iso.hpp"
#include "core/ownership/vm_mark.hpp"
#include "core/placement/cpu_set.hpp"
#include "protocol/proxmox/client.hpp"
#include "protocol/transport/http_client.hpp"
#include "protocol/transport/io_runtime.hpp"
#include "test/actors/launch_requests.hpp"
#include "test/support/await_completion.hpp"
#include "test/support/pve_sim_process.hpp"

namespace kp::actors::region::sim_fixture {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using namespace kp::protocol;

using kp::test::pve_sim_process;

inline std::string sim_binary() {
  return pve_sim_process::binary();
}

template <class T, class Start>
result<T> await(Start start) {
  return kp::test_support::await_completion<T>(std::move(start), 30s);
}

class RegionActorSim : public ::testing::Test {
 public:
  static constexpr const char* region_name = "pve-sim";

 protected:
  void SetUp() override {
    if (!fs::exists(sim_binary())) {
      GTEST_SKIP() << "pve-sim is not built (looked for " << sim_binary()
                   << "; it comes from sim/pve and cmd/pve-sim)";
    }
    char dir[] = "/tmp/kp-region-sim-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    data_dir_ = dir;
    cleanup_.path = data_dir_;
    auto started = sim_.start({"--time-scale", "0.2", "--data-dir", data_dir_.string()});
    ASSERT_TRUE(started.ok()) << started.error().message;
    io_ = std::make_unique<transport::io_runtime>(1);
    cfg_.set("scheduler.max-threads", 2);
    sys_ = std::make_unique<caf::actor_system>(cfg_);
  }
  void TearDown() override {
    for (auto& a : actors_) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    actors_.clear();
    // An actor still handling a message (a refresh) would call a client whose io_context is
    // gone: wait until every actor has terminated before the io thread stops.
    if (sys_) sys_->await_all_actors_done();
    for (auto& c : clients_) c->close();
    io_.reset();  // joins the io thread; pending handlers (and their actor handles) go away
    clients_.clear();
    sys_.reset();
  }

  std::shared_ptr<proxmox::client> client(bool root) {
    using login = test::pve_sim_process::login;
    auto c = std::make_shared<proxmox::client>(
        io_->context(), sim_.client_settings(root ? login::root_ticket : login::token));
    clients_.push_back(c);
    return c;
  }

  static region_settings settings(bool root = false, std::size_t in_flight = 8,
                                  std::string cluster = "test-cluster") {
    region_settings s;
    s.region = region_name;
    s.cluster_name = std::move(cluster);
    s.max_in_flight = in_flight;
    s.refresh_interval = 30s;
    s.can_set_affinity = root;
    s.clone_wait.initial_interval = 20ms;
    s.clone_wait.max_interval = 200ms;
    s.clone_wait.timeout = 60s;
    s.start_wait = s.clone_wait;
    return s;
  }
  // The region allocates nothing before it knows the VMIDs NodeClaims name: none here.
  region_actor spawn_with(region_settings s) {
    auto a = spawn_region_actor(*sys_, client(s.can_set_affinity), s);
    caf::anon_send(a, claimed_vmids{});
    actors_.push_back(a);
    return a;
  }
  region_actor spawn(bool root = false, std::size_t in_flight = 8,
                     std::string cluster = "test-cluster") {
    return spawn_with(settings(root, in_flight, std::move(cluster)));
  }

  // A launch with the built-in cloud-init on its CD-ROM (with_iso), rendered by the region.
  launch_request request(const std::string& name, bool with_iso = true) {
    auto r = kp::test::c2_m4_launch(name, 2048);
    r.tags = {"team-a"};
    if (with_iso) r.cloud_init = kp::test::nocloud_join(name, "https://127.0.0.1:6443");
    return r;
  }

  launch_reply launch(region_actor a, launch_request r) {
    caf::scoped_actor self{*sys_};
    launch_reply out;
    out.error = {"test", "no reply"};
    self->request(a, 120s, launch_atom::value, std::move(r))
        .receive([&](launch_reply& reply) { out = std::move(reply); },
                 [&](caf::error& e) {
                   out.error = {"caf", sys_->render(e)};
                 });
    return out;
  }
  delete_reply remove(region_actor a, delete_request r) {
    caf::scoped_actor self{*sys_};
    delete_reply out;
    out.error = {"test", "no reply"};
    self->request(a, 120s, vm_delete_atom::value, r)
        .receive([&](delete_reply& reply) { out = std::move(reply); },
                 [&](caf::error& e) {
                   out.error = {"caf", sys_->render(e)};
                 });
    return out;
  }
  owned_vm_listing listing(region_actor a) {
    caf::scoped_actor self{*sys_};
    owned_vm_listing out;
    self->request(a, 60s, list_owned_atom::value)
        .receive([&](owned_vm_listing& v) { out = std::move(v); },
                 [&](caf::error& e) { ADD_FAILURE() << sys_->render(e); });
    return out;
  }
  std::vector<owned_vm> owned(region_actor a) {
    auto l = listing(a);
    EXPECT_TRUE(l.fresh) << l.detail;
    return l.vms;
  }
  template <class Reply, class... Ts>
  Reply ask(region_actor a, Ts... xs) {
    caf::scoped_actor self{*sys_};
    Reply out;
    out.error = {"test", "no reply"};
    self->request(a, 120s, xs...)
        .receive([&](Reply& r) { out = std::move(r); },
                 [&](caf::error& e) {
                   out.error = {"caf", sys_->render(e)};
                 });
    return out;
  }
  // The cloud-init ISO pve-sim stored for a volume id (local:iso/<file>) on `node`.
  result<cloudinit::nocloud_files> iso_files(const std::string& node, const std::string& volid) {
    auto colon = volid.find(':');
    auto slash = volid.find('/');
    if (colon == std::string::npos || slash == std::string::npos) {
      return make_error("test", "not a volume id: " + volid);
    }
    auto path = data_dir_ / node / volid.substr(0, colon) / "iso" / volid.substr(slash + 1);
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error("test", "no file " + path.string());
    std::stringstream bytes;
    bytes << in.rdbuf();
    return cloudinit::read_nocloud_iso(bytes.str());
  }
  region_inventory inventory(region_actor a) {
    caf::scoped_actor self{*sys_};
    region_inventory out;
    self->request(a, 60s, inventory_atom::value)
        .receive([&](region_inventory& v) { out = std::move(v); },
                 [&](caf::error& e) { ADD_FAILURE() << sys_->render(e); });
    return out;
  }

  proxmox::vm_config config_of(const std::string& node, std::uint32_t vmid) {
    auto c =
        await<proxmox::vm_config>([&](auto cb) { clients_.front()->vm_config(node, vmid, cb); });
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
    return c.ok() ? *c : proxmox::vm_config{};
  }
  // A VM made behind the actor's back (another controller, the Go provider, a person).
  void clone_directly(std::uint32_t vmid, const std::string& name, const std::string& description) {
    proxmox::clone_request c;
    c.node = "pve1";
    c.source_vmid = 9001;
    c.new_vmid = vmid;
    c.name = name;
    c.description = description;
    c.full = false;
    auto task = await<proxmox::upid>([&](auto cb) { clients_.front()->clone_vm(c, cb); });
    ASSERT_TRUE(task.ok()) << task.error().message;
    proxmox::task_wait_options w;
    w.initial_interval = 20ms;
    auto done =
        await<proxmox::task_status>([&](auto cb) { clients_.front()->wait_task(*task, w, cb); });
    ASSERT_TRUE(done.ok()) << done.error().message;
  }
  std::vector<proxmox::cluster_resource> vms() {
    auto r = await<std::vector<proxmox::cluster_resource>>(
        [&](auto cb) { clients_.front()->cluster_resources(proxmox::resource_type::vm, cb); });
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : std::vector<proxmox::cluster_resource>{};
  }

  result<transport::http_response> sim_call(const std::string& method, const std::string& target,
                                            const std::string& body = "") {
    transport::http_client http(io_->context(), sim_.transport_options());
    transport::http_request req;
    req.method = method;
    req.target = target;
    req.headers.emplace_back("Content-Type", "application/json");
    req.body = body;
    return await<transport::http_response>([&](auto cb) { http.send(sim_.url(), req, cb); });
  }
  // Requests per "METHOD path" from /sim/v1/stats.
  std::map<std::string, std::int64_t> stats() {
    std::map<std::string, std::int64_t> out;
    auto r = sim_call("GET", "/sim/v1/stats");
    EXPECT_TRUE(r.ok());
    if (!r.ok()) return out;
    auto counts = kp::test::request_counts(r->body);
    EXPECT_TRUE(counts.ok()) << counts.error().message;
    return counts.ok() ? *counts : out;
  }
  // Writes made for VM creation (GETs are inventory refreshes and task polls).
  static std::int64_t writes(const std::map<std::string, std::int64_t>& s) {
    std::int64_t n = 0;
    for (const auto& [k, c] : s) {
      if (k.rfind("GET ", 0) != 0 && k.find("/access/ticket") == std::string::npos) n += c;
    }
    return n;
  }

  // Removes pve-sim's data directory after the simulator stopped (members go in reverse order).
  struct dir_cleanup {
    fs::path path;
    ~dir_cleanup() {
      std::error_code ec;
      if (!path.empty()) fs::remove_all(path, ec);
    }
  } cleanup_;
  pve_sim_process sim_;
  std::unique_ptr<transport::io_runtime> io_;
  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> sys_;
  std::vector<std::shared_ptr<proxmox::client>> clients_;
  std::vector<region_actor> actors_;
  fs::path data_dir_;
};

}  // namespace kp::actors::region::sim_fixture
