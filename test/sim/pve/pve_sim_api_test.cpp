// pve-sim over TLS with the project's HTTP client: envelope and error shapes, authentication,
// refusals as in Proxmox, tasks, faults and counters.
#include <gtest/gtest.h>

#include "pve_sim_test_client.hpp"
#include "sim/pve/number_text.hpp"

using namespace kp::sim::pve;
using namespace kp::sim::pve::testing;
namespace json = boost::json;

namespace {

class PveSimApi : public ::testing::Test {
 protected:
  sim_fixture sim;

  // Full clone of the pve1 template; returns the new VMID.
  int clone_template(const param_list& extra = {}) {
    auto id = sim.api("GET", "/cluster/nextid");
    int vmid = parse_number<int>(std::string(id.data().as_string())).value_or(0);
    param_list p = {
        {"newid", std::to_string(vmid)}, {"name", "node-" + std::to_string(vmid)}, {"full", "1"}};
    p.insert(p.end(), extra.begin(), extra.end());
    EXPECT_EQ(sim.run_task("POST", "/nodes/pve1/qemu/9001/clone", p), "OK");
    return vmid;
  }

  std::string vm_path(int vmid) { return "/nodes/pve1/qemu/" + std::to_string(vmid); }

  json::object stats_row(const std::string& method, const std::string& path) {
    auto r = sim.sim("GET", "/sim/v1/stats");
    for (const auto& row : r.json.as_object().at("requests").as_array())
      if (row.at("method").as_string() == method && row.at("path").as_string() == path)
        return row.as_object();
    return {};
  }
};

}  // namespace

TEST_F(PveSimApi, RepliesWrapDataInAnEnvelopeWithTheExactContentType) {
  auto r = sim.api("GET", "/version");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("Content-Type"), "application/json;charset=UTF-8");
  EXPECT_EQ(r.data().at("version").as_string(), "8.4.1");
}

TEST_F(PveSimApi, AnUnknownPathIsNotImplementedWithNullData) {
  auto r = sim.api("GET", "/nodes/pve1/nothing-here");
  EXPECT_EQ(r.status, 501);
  EXPECT_TRUE(r.data().is_null());
  EXPECT_NE(r.reason.find("not implemented"), std::string::npos);
}

TEST_F(PveSimApi, ABadTokenIsRefusedWith401AndNullData) {
  auto r = sim.api("GET", "/nodes", {},
                   {{"Authorization",
                     "PVEAPIToken=kubernetes@pve!karpenter=00000000-0000-0000-0000-000000000000"}});
  EXPECT_EQ(r.status, 401);
  EXPECT_TRUE(r.data().is_null());
  auto none = sim.api("GET", "/nodes", {}, {});
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(none.reason, "No ticket");
}

TEST_F(PveSimApi, ParameterErrorsAre400WithAnErrorsObject) {
  auto r = sim.api("GET", "/cluster/nextid", {{"vmid", "9001"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_TRUE(r.data().is_null());
  EXPECT_EQ(r.json.at("errors").at("vmid").as_string(), "VM 9001 already exists");
}

TEST_F(PveSimApi, NextidReturnsAStringAndReservesNothing) {
  auto a = sim.api("GET", "/cluster/nextid");
  auto b = sim.api("GET", "/cluster/nextid");
  ASSERT_TRUE(a.data().is_string());
  EXPECT_EQ(a.data().as_string(), "100");
  EXPECT_EQ(a.data(), b.data());
}

TEST_F(PveSimApi, NodeStatusCountsTotalPhysicalCores) {
  auto r = sim.api("GET", "/nodes/pve2/status");
  ASSERT_EQ(r.status, 200);
  const auto& cpu = r.data().at("cpuinfo");
  EXPECT_EQ(cpu.at("cpus").as_int64(), 32);
  EXPECT_EQ(cpu.at("sockets").as_int64(), 2);
  EXPECT_EQ(cpu.at("cores").as_int64(), 16);
}

TEST_F(PveSimApi, RootOnlyKeysAreRefusedForTokensButAcceptedWithARootTicket) {
  int vmid = clone_template();
  auto r = sim.api("PUT", vm_path(vmid) + "/config", {{"affinity", "0,1,2,3"}});
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.reason, "only root can set 'affinity' config");
  auto skip = sim.api("PUT", vm_path(vmid) + "/config", {{"cores", "2"}, {"skiplock", "1"}});
  EXPECT_EQ(skip.status, 400);
  EXPECT_EQ(skip.json.at("errors").at("skiplock").as_string(), "Only root may use this option.");

  auto login = sim.api("POST", "/access/ticket",
                       {{"username", "root@pam"}, {"password", "pve-sim-root"}}, {});
  ASSERT_EQ(login.status, 200) << login.body;
  std::string ticket(login.data().at("ticket").as_string());
  std::string csrf(login.data().at("CSRFPreventionToken").as_string());
  EXPECT_EQ(ticket.rfind("PVE:root@pam:", 0), 0u);
  auto no_csrf = sim.api("PUT", vm_path(vmid) + "/config", {{"affinity", "0,1,2,3"}},
                         {{"Cookie", "PVEAuthCookie=" + ticket}});
  EXPECT_EQ(no_csrf.status, 401);
  auto ok = sim.api("PUT", vm_path(vmid) + "/config", {{"affinity", "0,1,2,3,8"}},
                    {{"Cookie", "PVEAuthCookie=" + ticket}, {"CSRFPreventionToken", csrf}});
  EXPECT_EQ(ok.status, 200) << ok.body;
  auto cfg = sim.api("GET", vm_path(vmid) + "/config");
  EXPECT_EQ(cfg.data().at("affinity").as_string(), "0-3,8");
  auto bad =
      sim.api("POST", "/access/ticket", {{"username", "root@pam"}, {"password", "wrong"}}, {});
  EXPECT_EQ(bad.status, 401);
}

TEST_F(PveSimApi, JsonBodiesAreAcceptedLikeFormBodies) {
  int vmid = clone_template();
  kp::transport::http_request req;
  req.method = "PUT";
  req.target = "/api2/json" + vm_path(vmid) + "/config";
  req.headers = {{"Authorization", token_header}, {"Content-Type", "application/json"}};
  req.body = R"({"cores": 4, "tags": "B;a", "numa": true})";
  auto r = sim.raw(req);
  ASSERT_EQ(r.status, 200) << r.body;
  auto cfg = sim.api("GET", vm_path(vmid) + "/config");
  EXPECT_EQ(cfg.data().at("cores").as_int64(), 4);
  EXPECT_EQ(cfg.data().at("numa").as_int64(), 1);
  EXPECT_EQ(cfg.data().at("tags").as_string(), "a;b");
  EXPECT_TRUE(cfg.data().at("memory").is_string());
}

TEST_F(PveSimApi, TasksHaveProxmoxUpidsAndRunThenStop) {
  auto r = sim.api("POST", "/nodes/pve1/qemu/9001/clone", {{"newid", "150"}, {"name", "a"}});
  ASSERT_EQ(r.status, 200) << r.body;
  std::string upid(r.data().as_string());
  // UPID:pve1:<pid 8 hex>:<pstart 8-9 hex>:<starttime 8 hex>:qmclone:9001:<token>:
  auto hex = [](std::string_view s) {
    return s.find_first_not_of("0123456789ABCDEF") == std::string_view::npos;
  };
  std::string_view u = upid;
  ASSERT_EQ(u.substr(0, 10), "UPID:pve1:") << upid;
  ASSERT_TRUE(u.size() > 30 && hex(u.substr(10, 8)) && u[18] == ':') << upid;
  auto pstart_end = u.find(':', 19);
  EXPECT_TRUE(pstart_end - 19 >= 8 && pstart_end - 19 <= 9 && hex(u.substr(19, pstart_end - 19)))
      << upid;
  EXPECT_TRUE(hex(u.substr(pstart_end + 1, 8))) << upid;
  EXPECT_EQ(u.substr(pstart_end + 9), ":qmclone:9001:kubernetes@pve!karpenter:") << upid;
  auto first = sim.api("GET", "/nodes/pve1/tasks/" + url_encode(upid) + "/status");
  EXPECT_EQ(first.data().at("status").as_string(), "running");
  EXPECT_EQ(first.data().at("tokenid").as_string(), "karpenter");
  EXPECT_EQ(first.data().at("user").as_string(), "kubernetes@pve");
  // While the clone runs the new VM exists, locked.
  auto locked = sim.api("PUT", "/nodes/pve1/qemu/150/config", {{"cores", "2"}});
  EXPECT_EQ(locked.status, 500);
  EXPECT_EQ(locked.reason, "VM is locked (clone)");
  auto done = sim.wait_task(upid);
  EXPECT_EQ(done.at("exitstatus").as_string(), "OK");
  auto log = sim.api("GET", "/nodes/pve1/tasks/" + url_encode(upid) + "/log");
  EXPECT_EQ(log.data().as_array().back().at("t").as_string(), "TASK OK");
  auto unknown =
      sim.api("GET", "/nodes/pve1/tasks/" +
                         url_encode("UPID:pve1:00000001:00000001:00000001:qmstart:1:root@pam:") +
                         "/status");
  EXPECT_EQ(unknown.status, 400);
  EXPECT_EQ(unknown.json.at("errors").at("upid").as_string(), "no such task");
}

TEST_F(PveSimApi, ParallelClonesFromOneTemplateAllSucceed) {
  std::vector<std::string> upids;
  for (int id = 200; id < 205; ++id) {
    auto r = sim.api("POST", "/nodes/pve1/qemu/9001/clone",
                     {{"newid", std::to_string(id)}, {"name", "p" + std::to_string(id)}});
    ASSERT_EQ(r.status, 200) << r.body;
    upids.emplace_back(r.data().as_string());
  }
  for (const auto& u : upids) EXPECT_EQ(sim.wait_task(u).at("exitstatus").as_string(), "OK");
  auto list = sim.api("GET", "/nodes/pve1/qemu");
  int clones = 0;
  for (const auto& vm : list.data().as_array())
    if (vm.at("vmid").as_int64() >= 200 && vm.at("vmid").as_int64() < 205) ++clones;
  EXPECT_EQ(clones, 5);
}

TEST_F(PveSimApi, ALinkedCloneFromANonTemplateIsRefused) {
  int vmid = clone_template();
  auto r = sim.api("POST", vm_path(vmid) + "/clone", {{"newid", "300"}, {"full", "0"}});
  EXPECT_EQ(r.status, 500);
  EXPECT_NE(r.reason.find("Linked clone feature is not supported"), std::string::npos);
  auto storage = sim.api("POST", "/nodes/pve1/qemu/9001/clone",
                         {{"newid", "300"}, {"full", "0"}, {"storage", "local-lvm"}});
  EXPECT_EQ(storage.reason, "parameter 'storage' not allowed for linked clones");
}

TEST_F(PveSimApi, ATemplateCannotBeDestroyedWhileLinkedClonesUseIt) {
  EXPECT_EQ(sim.run_task("POST", "/nodes/pve1/qemu/9001/clone", {{"newid", "310"}, {"full", "0"}}),
            "OK");
  auto cfg = sim.api("GET", "/nodes/pve1/qemu/310/config");
  EXPECT_EQ(cfg.data().at("scsi0").as_string().subview().substr(0, 44),
            "local-lvm:base-9001-disk-0/vm-310-disk-0,iot");
  auto refused = sim.run_task("DELETE", "/nodes/pve1/qemu/9001");
  EXPECT_NE(refused.find("still in use by linked clone"), std::string::npos) << refused;
  EXPECT_EQ(sim.api("GET", "/nodes/pve1/qemu/9001/config").status, 200);
  EXPECT_EQ(sim.run_task("DELETE", "/nodes/pve1/qemu/310", {{"purge", "1"}}), "OK");
  EXPECT_EQ(sim.run_task("DELETE", "/nodes/pve1/qemu/9001"), "OK");
}

TEST_F(PveSimApi, DeletingARunningVmFailsUntilItIsStopped) {
  int vmid = clone_template();
  EXPECT_EQ(sim.run_task("POST", vm_path(vmid) + "/status/start"), "OK");
  auto r = sim.api("DELETE", vm_path(vmid), {{"purge", "1"}});
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.reason, "VM " + std::to_string(vmid) + " is running - destroy failed");
  EXPECT_EQ(sim.run_task("POST", vm_path(vmid) + "/status/start"),
            "VM " + std::to_string(vmid) + " already running");
  EXPECT_EQ(sim.run_task("POST", vm_path(vmid) + "/status/stop"), "OK");
  EXPECT_EQ(sim.run_task("POST", vm_path(vmid) + "/status/stop"), "OK");  // no-op
  EXPECT_EQ(sim.run_task("DELETE", vm_path(vmid), {{"purge", "1"}}), "OK");
  EXPECT_EQ(sim.api("GET", vm_path(vmid) + "/config").status, 500);
}

TEST_F(PveSimApi, ChangesToARunningVmStayPendingUntilRestartAndDigestsGuardWrites) {
  int vmid = clone_template();
  auto before = sim.api("GET", vm_path(vmid) + "/config");
  std::string digest(before.data().at("digest").as_string());
  EXPECT_EQ(sim.api("PUT", vm_path(vmid) + "/config", {{"cores", "3"}, {"digest", "0000"}}).status,
            500);
  EXPECT_EQ(sim.run_task("POST", vm_path(vmid) + "/config", {{"cores", "3"}, {"digest", digest}}),
            "OK");
  EXPECT_EQ(sim.run_task("POST", vm_path(vmid) + "/status/start"), "OK");
  EXPECT_EQ(sim.api("PUT", vm_path(vmid) + "/config", {{"memory", "4096"}, {"tags", "x"}}).status,
            200);
  auto current = sim.api("GET", vm_path(vmid) + "/config", {{"current", "1"}});
  EXPECT_EQ(current.data().at("memory").as_string(), "2048");
  EXPECT_EQ(current.data().at("tags").as_string(), "x");  // applied at once
  auto pending = sim.api("GET", vm_path(vmid) + "/pending");
  bool found = false;
  for (const auto& e : pending.data().as_array())
    if (e.at("key").as_string() == "memory") found = e.as_object().contains("pending");
  EXPECT_TRUE(found);
  EXPECT_EQ(sim.api("GET", vm_path(vmid) + "/config").data().at("memory").as_string(), "4096");
}

TEST_F(PveSimApi, ResizeGrowsDisksAndRefusesShrinking) {
  int vmid = clone_template();
  EXPECT_EQ(sim.run_task("PUT", vm_path(vmid) + "/resize", {{"disk", "scsi0"}, {"size", "+10G"}}),
            "OK");
  auto cfg = sim.api("GET", vm_path(vmid) + "/config");
  EXPECT_NE(std::string(cfg.data().at("scsi0").as_string()).find("size=20G"), std::string::npos);
  auto shrink = sim.api("PUT", vm_path(vmid) + "/resize", {{"disk", "scsi0"}, {"size", "5G"}});
  EXPECT_EQ(shrink.reason, "shrinking disks is not supported");
}

TEST_F(PveSimApi, ANewVmIsUnknownInClusterResourcesUntilItsStatsArrive) {
  // rrd_lag is 2000 ms * 0.05 = 100 ms here.
  auto r = sim.api("POST", "/nodes/pve1/qemu/9001/clone", {{"newid", "400"}});
  std::string upid(r.data().as_string());
  auto entry = [&]() -> json::object {
    auto r = sim.api("GET", "/cluster/resources", {{"type", "vm"}});
    for (const auto& e : r.data().as_array())
      if (e.at("vmid").as_int64() == 400) return e.as_object();
    return {};
  };
  auto status_of = [&]() -> std::string {
    auto e = entry();
    return e.empty() ? "absent" : std::string(e.at("status").as_string());
  };
  EXPECT_EQ(status_of(), "unknown");
  // Without RRD data: no stats, the lock from the config; the name stays unless strict_rrd.
  auto lagging = entry();
  EXPECT_FALSE(lagging.contains("maxmem"));
  EXPECT_EQ(lagging.at("lock").as_string(), "clone");
  EXPECT_TRUE(lagging.contains("name"));
  sim.wait_task(upid);
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (status_of() != "stopped" && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(status_of(), "stopped");
}

TEST(PveSimStrictRrd, ANewVmIsListedByItsIdentityAloneUntilItsStatsArrive) {
  std::string yaml = default_topology_yaml();
  yaml.replace(yaml.find("region: pve-sim}"), 16, "region: pve-sim, strict_rrd: true}");
  sim_fixture sim(0.05, yaml);
  auto r = sim.api("POST", "/nodes/pve1/qemu/9001/clone", {{"newid", "401"}, {"name", "fresh"}});
  ASSERT_EQ(r.status, 200) << r.body;
  auto entry = [&]() -> json::object {
    auto list = sim.api("GET", "/cluster/resources", {{"type", "vm"}});
    for (const auto& e : list.data().as_array())
      if (e.at("vmid").as_int64() == 401) return e.as_object();
    return {};
  };
  auto lagging = entry();
  EXPECT_EQ(lagging.at("status").as_string(), "unknown");
  EXPECT_FALSE(lagging.contains("name")) << json::serialize(lagging);
  EXPECT_FALSE(lagging.contains("template"));
  EXPECT_EQ(lagging.at("id").as_string(), "qemu/401");
  EXPECT_EQ(lagging.at("node").as_string(), "pve1");
  sim.wait_task(std::string(r.data().as_string()));
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (entry().at("status").as_string() == "unknown" && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // poll interval
  EXPECT_EQ(entry().at("name").as_string(), "fresh");
}

TEST_F(PveSimApi, HostMemoryAndNumaFreeMemoryFollowRunningVms) {
  auto host = [&](const std::string& name) {
    auto r = sim.sim("GET", "/sim/v1/hosts");
    for (const auto& h : r.json.as_array())
      if (h.at("node").as_string() == name) return h.as_object();
    return json::object{};
  };
  auto before = host("pve1");
  int vmid = clone_template();
  EXPECT_EQ(sim.run_task("PUT", vm_path(vmid) + "/config", {{"memory", "8192"}}),
            "HTTP 200 {\"data\":null}");
  EXPECT_EQ(sim.run_task("POST", vm_path(vmid) + "/status/start"), "OK");
  auto after = host("pve1");
  EXPECT_EQ(after.at("mem").as_int64() - before.at("mem").as_int64(), 8192ll << 20);
  auto free0 = before.at("numa").as_array()[0].at("free").as_int64() -
               after.at("numa").as_array()[0].at("free").as_int64();
  EXPECT_EQ(free0, 4096ll << 20);  // unpinned memory spreads over both NUMA nodes
  EXPECT_GT(after.at("cpu").as_double(), before.at("cpu").as_double());
}

TEST_F(PveSimApi, InjectedFaultsFailRequestsTasksHostsAndStorages) {
  auto set = sim.sim(
      "PUT", "/sim/v1/faults",
      R"({"errors":[{"path":"/nodes/{node}/qemu/{vmid}/clone","method":"POST","status":503,"message":"injected","count":1}],
                         "failing_tasks":[{"type":"qmstart","message":"start failed: injected","count":1}],
                         "offline_hosts":[{"node":"pve3","status":596}],
                         "unreachable_storages":[{"node":"pve2","storage":"local"}],
                         "latency":[{"path":"/version","ms":50}]})");
  ASSERT_EQ(set.status, 200) << set.body;
  auto clone = sim.api("POST", "/nodes/pve1/qemu/9001/clone", {{"newid", "500"}});
  EXPECT_EQ(clone.status, 503);
  EXPECT_EQ(clone.reason, "injected");
  int vmid = clone_template();  // the count is used up
  EXPECT_EQ(sim.run_task("POST", vm_path(vmid) + "/status/start"), "start failed: injected");
  EXPECT_EQ(sim.api("GET", "/nodes/pve3/status").status, 596);
  auto nodes = sim.api("GET", "/nodes");
  for (const auto& n : nodes.data().as_array())
    if (n.at("node").as_string() == "pve3") {
      EXPECT_EQ(n.at("status").as_string(), "offline");
    }
  EXPECT_EQ(sim.api("GET", "/nodes/pve2/storage/local/content").status, 500);
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(sim.api("GET", "/version").status, 200);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(50));
  EXPECT_EQ(sim.sim("DELETE", "/sim/v1/faults").status, 200);
  EXPECT_EQ(sim.api("GET", "/nodes/pve3/status").status, 200);
}

TEST_F(PveSimApi, SlowClonesTakeLongerAndFaultsSurviveAsSet) {
  ASSERT_EQ(sim.sim("PUT", "/sim/v1/faults", R"({"slow_clone_factor": 4})").status, 200);
  auto r = sim.api("POST", "/nodes/pve1/qemu/9001/clone", {{"newid", "510"}});
  auto t0 = std::chrono::steady_clock::now();
  auto st = sim.wait_task(std::string(r.data().as_string()));
  EXPECT_EQ(st.at("exitstatus").as_string(), "OK");
  EXPECT_GE(std::chrono::steady_clock::now() - t0,
            std::chrono::milliseconds(150));  // 1000*0.05*4 = 200 ms
}

TEST_F(PveSimApi, RequestsAreCountedByTemplatedPathAndMethod) {
  sim.sim("DELETE", "/sim/v1/stats");
  int vmid = clone_template();
  sim.api("GET", vm_path(vmid) + "/config");
  sim.api("GET", "/nodes/pve1/qemu/9001/config");
  auto row = stats_row("GET", "/nodes/{node}/qemu/{vmid}/config");
  ASSERT_FALSE(row.empty());
  EXPECT_EQ(row.at("count").as_int64(), 2);
  EXPECT_EQ(stats_row("POST", "/nodes/{node}/qemu/{vmid}/clone").at("count").as_int64(), 1);
  EXPECT_EQ(row.at("statuses").at("200").as_int64(), 2);
}

TEST_F(PveSimApi, IsoUploadsAreMultipartFilesUnderTheDataDirectory) {
  std::string boundary = "----pvesimboundary";
  std::string iso = "fake iso bytes";
  std::string body =
      "--" + boundary + "\r\nContent-Disposition: form-data; name=\"content\"\r\n\r\niso\r\n" +
      "--" + boundary +
      "\r\nContent-Disposition: form-data; name=\"filename\"; filename=\"user data 1.iso\"\r\n" +
      "Content-Type: application/octet-stream\r\n\r\n" + iso + "\r\n--" + boundary + "--\r\n";
  kp::transport::http_request req;
  req.method = "POST";
  req.target = "/api2/json/nodes/pve1/storage/local/upload";
  req.headers = {{"Authorization", token_header},
                 {"Content-Type", "multipart/form-data; boundary=" + boundary}};
  req.body = body;
  auto r = sim.raw(req);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(sim.wait_task(std::string(r.data().as_string())).at("exitstatus").as_string(), "OK");
  EXPECT_TRUE(
      std::filesystem::exists(sim.data_dir() / "pve1" / "local" / "iso" / "user_data_1.iso"));
  auto content = sim.api("GET", "/nodes/pve1/storage/local/content", {{"content", "iso"}});
  ASSERT_EQ(content.data().as_array().size(), 1u);
  EXPECT_EQ(content.data().as_array()[0].at("volid").as_string(), "local:iso/user_data_1.iso");
  EXPECT_EQ(sim.run_task("DELETE", "/nodes/pve1/storage/local/content/" +
                                       url_encode("local:iso/user_data_1.iso")),
            "OK");
  EXPECT_FALSE(
      std::filesystem::exists(sim.data_dir() / "pve1" / "local" / "iso" / "user_data_1.iso"));

  req.body =
      "--" + boundary + "\r\nContent-Disposition: form-data; name=\"content\"\r\n\r\niso\r\n" +
      "--" + boundary +
      "\r\nContent-Disposition: form-data; name=\"filename\"; filename=\"x.txt\"\r\n\r\nx\r\n--" +
      boundary + "--\r\n";
  auto wrong = sim.raw(req);
  EXPECT_EQ(wrong.status, 400);
  EXPECT_EQ(wrong.json.at("errors").at("filename").as_string(), "wrong file extension");
}

TEST_F(PveSimApi, DownloadUrlCreatesTheImageAfterADelayAndChecksTheChecksum) {
  const std::string url = "https://images.example/noble.qcow2";
  // sha256 of "pve-sim image <url>\n" is what a matching declaration carries; any other fails.
  auto bad = sim.run_task("POST", "/nodes/pve2/storage/local/download-url",
                          {{"content", "import"},
                           {"filename", "noble.qcow2"},
                           {"url", url},
                           {"checksum-algorithm", "sha256"},
                           {"checksum", std::string(64, 'a')}});
  EXPECT_NE(bad.find("checksum mismatch"), std::string::npos) << bad;
  EXPECT_EQ(sim.run_task("POST", "/nodes/pve2/storage/local/download-url",
                         {{"content", "import"}, {"filename", "noble.qcow2"}, {"url", url}}),
            "OK");
  EXPECT_TRUE(
      std::filesystem::exists(sim.data_dir() / "pve2" / "local" / "import" / "noble.qcow2"));
  // A template from the imported image.
  EXPECT_EQ(sim.run_task("POST", "/nodes/pve2/qemu",
                         {{"vmid", "1000"},
                          {"name", "imported"},
                          {"memory", "1024"},
                          {"scsi0", "local-lvm:0,import-from=local:import/noble.qcow2"},
                          {"net0", "virtio,bridge=vmbr0"}}),
            "OK");
  auto cfg = sim.api("GET", "/nodes/pve2/qemu/1000/config");
  EXPECT_EQ(cfg.data().at("scsi0").as_string(), "local-lvm:vm-1000-disk-0,size=2G");
  EXPECT_NE(std::string(cfg.data().at("net0").as_string()).find("virtio=BC:24:11:"),
            std::string::npos);
  EXPECT_EQ(sim.run_task("POST", "/nodes/pve2/qemu/1000/template"), "OK");
  cfg = sim.api("GET", "/nodes/pve2/qemu/1000/config");
  EXPECT_EQ(cfg.data().at("template").as_int64(), 1);
  EXPECT_EQ(cfg.data().at("scsi0").as_string(), "local-lvm:base-1000-disk-0,size=2G");
}

TEST_F(PveSimApi, FirewallRulesGoOnTopAndGroupsAreUnique) {
  int vmid = clone_template();
  EXPECT_EQ(
      sim.api("PUT", vm_path(vmid) + "/firewall/options", {{"enable", "1"}, {"policy_in", "DROP"}})
          .status,
      200);
  EXPECT_EQ(
      sim.api("POST", vm_path(vmid) + "/firewall/rules",
              {{"type", "group"}, {"action", "kubernetes"}, {"iface", "net0"}, {"enable", "1"}})
          .status,
      200);
  EXPECT_EQ(sim.api("POST", vm_path(vmid) + "/firewall/rules",
                    {{"type", "in"}, {"action", "ACCEPT"}, {"proto", "tcp"}})
                .status,
            200);
  auto rules = sim.api("GET", vm_path(vmid) + "/firewall/rules").data().as_array();
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].at("action").as_string(), "ACCEPT");
  EXPECT_FALSE(rules[0].as_object().contains("enable"));
  EXPECT_EQ(rules[1].at("action").as_string(), "kubernetes");
  EXPECT_EQ(rules[1].at("enable").as_int64(), 1);
  auto dup = sim.api("POST", "/cluster/firewall/groups", {{"group", "kubernetes"}});
  EXPECT_EQ(dup.status, 400);
  EXPECT_EQ(dup.json.at("errors").at("group").as_string(),
            "Security group 'kubernetes' already exists");
}

TEST_F(PveSimApi, AFailedCloneTaskLeavesNoVmAndNoLockBehind) {
  ASSERT_EQ(sim.sim("PUT", "/sim/v1/faults",
                    R"({"failing_tasks":[{"type":"qmclone","message":"clone failed: injected"}]})")
                .status,
            200);
  EXPECT_EQ(sim.run_task("POST", "/nodes/pve1/qemu/9001/clone", {{"newid", "600"}}),
            "clone failed: injected");
  EXPECT_EQ(sim.api("GET", "/nodes/pve1/qemu/600/config").status, 500);
  sim.sim("DELETE", "/sim/v1/faults");
  // The template is writable again: its shared clone lock was released.
  EXPECT_EQ(sim.api("PUT", "/nodes/pve1/qemu/9001/config", {{"description", "x"}}).status, 200);
}

TEST_F(PveSimApi, ADiskInAConfigWriteIsAllocatedCountedInItsStorageAndFreedWithTheVm) {
  auto used = [&] {
    auto r = sim.api("GET", "/nodes/pve1/storage", {{"storage", "local-lvm"}});
    return r.data().as_array().at(0).at("used").to_number<std::int64_t>();
  };
  const auto without_vm = used();
  int vmid = clone_template();
  const auto before = used();
  EXPECT_GT(before, without_vm) << "a full clone's disk is a volume of its own";
  EXPECT_EQ(sim.run_task("POST", vm_path(vmid) + "/config",
                         {{"scsi1", "local-lvm:20,cache=none,discard=on,iothread=1,ssd=1"}}),
            "OK");
  const std::string volid = "local-lvm:vm-" + std::to_string(vmid) + "-disk-1";
  auto cfg = sim.api("GET", vm_path(vmid) + "/config");
  EXPECT_EQ(cfg.data().at("scsi1").as_string(),
            volid + ",cache=none,discard=on,iothread=1,ssd=1,size=20G");
  EXPECT_EQ(used() - before, std::int64_t{20} << 30);
  bool listed = false;
  auto content = sim.api("GET", "/nodes/pve1/storage/local-lvm/content");
  for (const auto& v : content.data().as_array())
    listed = listed || v.at("volid").as_string() == volid;
  EXPECT_TRUE(listed) << content.body;
  EXPECT_EQ(sim.run_task("DELETE", vm_path(vmid)), "OK");
  EXPECT_EQ(used(), without_vm) << "destroying the VM frees its volumes";
}

TEST_F(PveSimApi, ADiskWithAnUnknownCacheModeIsRefusedNamingTheOption) {
  int vmid = clone_template();
  auto r = sim.api("POST", vm_path(vmid) + "/config", {{"scsi1", "local-lvm:20,cache=fast"}});
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(r.body.find("scsi1.cache"), std::string::npos) << r.body;
  auto too_big = sim.api("POST", vm_path(vmid) + "/config", {{"scsi1", "local-lvm:5000"}});
  EXPECT_NE(too_big.reason.find("not enough free space"), std::string::npos) << too_big.body;
}

TEST(PveSimLinkedClones, ATemplateOnPlainLvmCanOnlyBeClonedInFull) {
  auto topology = default_topology_yaml();
  auto at = topology.find("type: lvmthin");
  ASSERT_NE(at, std::string::npos);
  topology.replace(at, std::string("type: lvmthin").size(), "type: lvm");
  sim_fixture sim(0.05, topology);
  auto linked = sim.api("POST", "/nodes/pve1/qemu/9001/clone", {{"newid", "500"}, {"full", "0"}});
  EXPECT_EQ(linked.status, 500) << linked.body;
  EXPECT_EQ(linked.reason,
            "Linked clone feature is not supported for 'local-lvm:base-9001-disk-0' (scsi0)");
  EXPECT_EQ(sim.run_task("POST", "/nodes/pve1/qemu/9001/clone", {{"newid", "501"}, {"full", "1"}}),
            "OK");
}
