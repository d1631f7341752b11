// The faults a chaos run needs, set at runtime through /sim/v1/faults: 5xx on writes only
// (optionally after the write happened), a host offline for a while and back, config reads
// failing then healing; /cluster/resources as Proxmox shows an offline host; full clones slower
// than linked ones in proportion to their disks.
#include <gtest/gtest.h>

#include "pve_sim_test_client.hpp"
#include "test/support/eventually.hpp"

using namespace kp::sim::pve;
using namespace kp::sim::pve::testing;
namespace json = boost::json;

namespace {

class PveSimFaults : public ::testing::Test {
 protected:
  sim_fixture sim;

  bool eventually(const std::function<bool()>& done,
                  std::chrono::milliseconds deadline = std::chrono::seconds(10)) {
    return kp::test_support::eventually(done, deadline, std::chrono::milliseconds(10));
  }

  json::object resource(const std::string& id) {
    auto r = sim.api("GET", "/cluster/resources");
    for (const auto& e : r.data().as_array())
      if (e.at("id").as_string() == id) return e.as_object();
    return {};
  }
};

}  // namespace

TEST_F(PveSimFaults, WriteErrorsFailPostPutAndDeleteButSpareReads) {
  ASSERT_EQ(sim.sim("PUT", "/sim/v1/faults",
                    R"({"errors":[{"method":"write","status":503,"message":"writes down"}]})")
                .status,
            200);
  EXPECT_EQ(sim.api("GET", "/nodes/pve1/qemu/9001/config").status, 200);
  EXPECT_EQ(sim.api("GET", "/cluster/resources").status, 200);
  auto post = sim.api("POST", "/nodes/pve1/qemu/9001/clone", {{"newid", "900"}});
  EXPECT_EQ(post.status, 503);
  EXPECT_EQ(post.reason, "writes down");
  EXPECT_EQ(sim.api("PUT", "/nodes/pve1/qemu/9001/config", {{"description", "x"}}).status, 503);
  EXPECT_EQ(sim.api("DELETE", "/nodes/pve1/qemu/9901").status, 503);
  EXPECT_EQ(sim.api("GET", "/nodes/pve1/qemu/900/config").status, 500) << "the clone never ran";
}

TEST_F(PveSimFaults, AnAppliedWriteErrorCarriesTheWriteOutAndAnswersTheErrorAnyway) {
  ASSERT_EQ(sim.sim("PUT", "/sim/v1/faults",
                    R"({"errors":[{"path":"/nodes/{node}/qemu/{vmid}/config","method":"PUT",)"
                    R"("status":500,"message":"proxy timeout","applied":true,"count":1}]})")
                .status,
            200);
  auto put = sim.api("PUT", "/nodes/pve1/qemu/9901/config", {{"description", "changed"}});
  EXPECT_EQ(put.status, 500);
  EXPECT_EQ(sim.api("GET", "/nodes/pve1/qemu/9901/config").data().at("description").as_string(),
            "changed");
}

TEST_F(PveSimFaults, ARateOfWriteErrorsFailsAboutThatShareOfWrites) {
  ASSERT_EQ(sim.sim("PUT", "/sim/v1/faults",
                    R"({"seed":7,"errors":[{"method":"POST|PUT|DELETE","rate":0.3,"status":500}]})")
                .status,
            200);
  int failed = 0;
  for (int i = 0; i < 200; ++i)
    if (sim.api("PUT", "/nodes/pve1/qemu/9901/config", {{"description", std::to_string(i)}})
            .status == 500)
      ++failed;
  EXPECT_GT(failed, 30);
  EXPECT_LT(failed, 90);
}

TEST_F(PveSimFaults, AHostOfflineForAWhileAnswers595ThenComesBack) {
  ASSERT_EQ(sim.sim("PUT", "/sim/v1/faults",
                    R"({"offline_hosts":[{"node":"pve3","status":595,"duration_ms":300}]})")
                .status,
            200);
  auto down = sim.api("GET", "/nodes/pve3/qemu");
  EXPECT_EQ(down.status, 595);
  EXPECT_EQ(down.reason,
            "Errors during connection establishment, proxy handshake: No route to host");
  EXPECT_EQ(resource("node/pve3").at("status").as_string(), "offline");
  auto plan = sim.sim("GET", "/sim/v1/faults");
  EXPECT_TRUE(plan.json.at("offline_hosts").at(0).at("active").as_bool());
  EXPECT_TRUE(eventually([&] { return sim.api("GET", "/nodes/pve3/qemu").status == 200; }));
  EXPECT_EQ(resource("node/pve3").at("status").as_string(), "online");
  EXPECT_FALSE(
      sim.sim("GET", "/sim/v1/faults").json.at("offline_hosts").at(0).at("active").as_bool());
}

TEST_F(PveSimFaults, ConfigReadsFailForAWhileThenHeal) {
  ASSERT_EQ(sim.sim("PUT", "/sim/v1/faults",
                    R"({"errors":[{"path":"/nodes/{node}/qemu/{vmid}/config","method":"GET",)"
                    R"("status":500,"message":"cfs-lock timeout","duration_ms":300}]})")
                .status,
            200);
  EXPECT_EQ(sim.api("GET", "/nodes/pve1/qemu/9001/config").status, 500);
  EXPECT_EQ(sim.api("GET", "/nodes/pve1/qemu/9001/status/current").status, 200);
  EXPECT_TRUE(
      eventually([&] { return sim.api("GET", "/nodes/pve1/qemu/9001/config").status == 200; }));
  auto stats = sim.sim("GET", "/sim/v1/stats").json;
  bool counted = false;
  for (const auto& row : stats.at("requests").as_array())
    if (row.at("path").as_string() == "/nodes/{node}/qemu/{vmid}/config" &&
        row.at("method").as_string() == "GET")
      counted = row.at("statuses").as_object().contains("500") &&
                row.at("statuses").as_object().contains("200");
  EXPECT_TRUE(counted) << json::serialize(stats);
}

TEST(PveSimOfflineHost, ItsVmsKeepTheirLastStatsUntilTheRrdDataExpiresThenTurnUnknown) {
  // rrd_expiry 10 s and rrd_lag 0 at time scale 0.05: 500 ms.
  std::string yaml = default_topology_yaml();
  yaml.replace(yaml.find("  rrd_expiry: 300000\n"), 20, "  rrd_expiry: 10000\n");
  yaml.replace(yaml.find("  rrd_lag: 2000\n"), 16, "  rrd_lag: 0\n");
  sim_fixture sim(0.05, yaml);
  ASSERT_EQ(sim.run_task("POST", "/nodes/pve3/qemu/9003/clone", {{"newid", "950"}, {"name", "w"}}),
            "OK");
  ASSERT_EQ(sim.run_task("POST", "/nodes/pve3/qemu/950/status/start"), "OK");
  auto entry = [&](const std::string& id) {
    auto r = sim.api("GET", "/cluster/resources");
    for (const auto& e : r.data().as_array())
      if (e.at("id").as_string() == id) return e.as_object();
    return json::object{};
  };
  ASSERT_EQ(sim.sim("PUT", "/sim/v1/faults", R"({"offline_hosts":["pve3"]})").status, 200);
  auto t0 = std::chrono::steady_clock::now();
  auto node = entry("node/pve3");
  EXPECT_EQ(node.at("status").as_string(), "offline");
  EXPECT_FALSE(node.contains("cpu"));
  EXPECT_TRUE(node.contains("maxcpu")) << "the last RRD data is still there";
  auto stale = entry("qemu/950");
  EXPECT_EQ(stale.at("status").as_string(), "running") << "pmxcfs keeps the last RRD data";
  EXPECT_EQ(stale.at("name").as_string(), "w");

  kp::test_support::eventually(
      [&] { return entry("qemu/950").at("status").as_string() == "unknown"; },
      std::chrono::seconds(10), std::chrono::milliseconds(10));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(450));
  auto unknown = entry("qemu/950");
  EXPECT_EQ(unknown.at("status").as_string(), "unknown");
  EXPECT_FALSE(unknown.contains("name")) << "only identity is left: " << json::serialize(unknown);
  EXPECT_FALSE(unknown.contains("template"));
  EXPECT_EQ(unknown.at("vmid").as_int64(), 950);
  EXPECT_EQ(unknown.at("node").as_string(), "pve3");
  auto gone = entry("node/pve3");
  EXPECT_EQ(gone.at("status").as_string(), "offline");
  EXPECT_FALSE(gone.contains("maxcpu"));
  EXPECT_EQ(entry("storage/pve3/local-lvm").at("status").as_string(), "unknown");
  // Back online: live stats again, the VM still running.
  ASSERT_EQ(sim.sim("DELETE", "/sim/v1/faults").status, 200);
  EXPECT_EQ(entry("qemu/950").at("status").as_string(), "running");
  EXPECT_EQ(entry("node/pve3").at("status").as_string(), "online");
}

TEST(PveSimCloneTiming, AFullCloneTakesLongerThanALinkedOneInProportionToItsDisks) {
  // qmclone 1000 ms and 200 ms per GiB at time scale 0.05: linked 50 ms, full of the 10 GiB
  // template 50 + 100 = 150 ms... stretched by a 10x slow-clone factor to 0.5 s and 1.5 s.
  std::string yaml = default_topology_yaml();
  yaml.replace(yaml.find("  full_clone_per_gib_ms: 500\n"), 28, "  full_clone_per_gib_ms: 200\n");
  sim_fixture sim(0.05, yaml);
  ASSERT_EQ(sim.sim("PUT", "/sim/v1/faults", R"({"slow_clone_factor": 10})").status, 200);
  auto full = sim.api("POST", "/nodes/pve1/qemu/9001/clone", {{"newid", "960"}, {"full", "1"}});
  auto linked = sim.api("POST", "/nodes/pve1/qemu/9001/clone", {{"newid", "961"}});
  ASSERT_EQ(full.status, 200) << full.body;
  ASSERT_EQ(linked.status, 200) << linked.body;
  auto t0 = std::chrono::steady_clock::now();
  auto linked_done = sim.wait_task(std::string(linked.data().as_string()));
  auto linked_took = std::chrono::steady_clock::now() - t0;
  auto full_running = sim.api(
      "GET", "/nodes/pve1/tasks/" + url_encode(std::string(full.data().as_string())) + "/status");
  EXPECT_EQ(full_running.data().at("status").as_string(), "running")
      << "the full clone finished no later than the linked one";
  auto full_done = sim.wait_task(std::string(full.data().as_string()));
  auto full_took = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(linked_done.at("exitstatus").as_string(), "OK");
  EXPECT_EQ(full_done.at("exitstatus").as_string(), "OK");
  EXPECT_GE(full_took, std::chrono::milliseconds(1400));
  EXPECT_LT(linked_took, full_took);
}
