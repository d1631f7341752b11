// PCI resource mappings in pve-sim: /cluster/mapping/pci in Proxmox's format, hostpciN config
// checks, and the start-time choice of devices with qemu-server's refusals when they are busy.
#include <gtest/gtest.h>

#include "pve_sim_test_client.hpp"

using namespace kp::sim::pve;
using namespace kp::sim::pve::testing;
namespace json = boost::json;

namespace {

class PveSimPciMapping : public ::testing::Test {
 protected:
  sim_fixture sim;

  // A linked clone of the host's template with `hostpci0` set; returns its path.
  std::string gpu_vm(const std::string& node, int vmid, const std::string& hostpci,
                     const param_list& extra = {}) {
    const std::string tpl = node == "pve2" ? "9002" : node == "pve3" ? "9003" : "9001";
    EXPECT_EQ(
        sim.run_task("POST", "/nodes/" + node + "/qemu/" + tpl + "/clone",
                     {{"newid", std::to_string(vmid)}, {"name", "gpu-" + std::to_string(vmid)}}),
        "OK");
    const std::string path = "/nodes/" + node + "/qemu/" + std::to_string(vmid);
    param_list p = {{"hostpci0", hostpci}};
    p.insert(p.end(), extra.begin(), extra.end());
    auto r = sim.api("PUT", path + "/config", p);
    EXPECT_EQ(r.status, 200) << r.body;
    return path;
  }

  json::array host_devices(const std::string& node) {
    auto r = sim.sim("GET", "/sim/v1/hosts");
    for (const auto& h : r.json.as_array())
      if (h.at("node").as_string() == node) return h.at("pci_devices").as_array();
    return {};
  }
};

}  // namespace

TEST_F(PveSimPciMapping, MappingsAreListedInProxmoxFormatWithOneMapEntryPerDevice) {
  auto r = sim.api("GET", "/cluster/mapping/pci");
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_EQ(r.data().as_array().size(), 1u);
  const auto& gpu = r.data().as_array()[0].as_object();
  EXPECT_EQ(gpu.at("id").as_string(), "gpu");
  EXPECT_EQ(gpu.at("type").as_string(), "pci");
  EXPECT_EQ(gpu.at("digest").as_string().size(), 40u);
  EXPECT_FALSE(gpu.contains("checks"));
  const auto& map = gpu.at("map").as_array();
  ASSERT_EQ(map.size(), 3u);
  EXPECT_EQ(map[0].as_string(),
            "node=pve2,path=0000:01:00.0,id=10de:2204,subsystem-id=10de:147d,iommugroup=14");
  EXPECT_EQ(map[2].as_string().subview().substr(0, 29), "node=pve3,path=0000:41:00.0,i");

  auto one = sim.api("GET", "/cluster/mapping/pci/gpu");
  ASSERT_EQ(one.status, 200) << one.body;
  EXPECT_EQ(one.data().at("type").as_string(), "pci");
  EXPECT_EQ(one.data().at("map").as_array().size(), 3u);
  EXPECT_EQ(one.data().at("digest"), gpu.at("digest"));
  EXPECT_FALSE(one.data().as_object().contains("id"));
}

TEST_F(PveSimPciMapping, CheckNodeAddsAWarningForAHostWithoutADeviceOfTheMapping) {
  auto pve1 = sim.api("GET", "/cluster/mapping/pci", {{"check-node", "pve1"}});
  ASSERT_EQ(pve1.status, 200) << pve1.body;
  const auto& checks = pve1.data().as_array()[0].at("checks").as_array();
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].at("severity").as_string(), "warning");
  EXPECT_EQ(checks[0].at("message").as_string(), "No mapping for node pve1.");
  auto pve3 = sim.api("GET", "/cluster/mapping/pci", {{"check-node", "pve3"}});
  EXPECT_TRUE(pve3.data().as_array()[0].at("checks").as_array().empty());
}

TEST_F(PveSimPciMapping, AnUnknownMappingIsA500AndAMalformedIdA400) {
  auto missing = sim.api("GET", "/cluster/mapping/pci/tpu");
  EXPECT_EQ(missing.status, 500);
  EXPECT_EQ(missing.reason, "mapping 'tpu' not found");
  auto bad = sim.api("GET", "/cluster/mapping/pci/9gpu");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.json.at("errors").at("id").as_string(),
            "invalid format - invalid configuration ID '9gpu'\n");
}

TEST_F(PveSimPciMapping, OnAHostWithOneDeviceASecondVmIsRefusedWhileTheFirstRuns) {
  auto first = gpu_vm("pve2", 701, "mapping=gpu");
  auto second = gpu_vm("pve2", 702, "mapping=gpu");
  EXPECT_EQ(sim.run_task("POST", first + "/status/start"), "OK");
  EXPECT_EQ(sim.run_task("POST", second + "/status/start"),
            "PCI device '0000:01:00.0' already in use by VMID '701'");
  EXPECT_EQ(sim.api("GET", second + "/status/current").data().at("status").as_string(), "stopped");
  auto devices = host_devices("pve2");
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].at("used_by").as_int64(), 701);
  // Stopping the first frees the device.
  EXPECT_EQ(sim.run_task("POST", first + "/status/stop"), "OK");
  EXPECT_EQ(sim.run_task("POST", second + "/status/start"), "OK");
  EXPECT_EQ(host_devices("pve2")[0].at("used_by").as_int64(), 702);
}

TEST_F(PveSimPciMapping, OnAHostWithTwoDevicesTwoVmsStartAndAThirdFindsNoFreeDevice) {
  auto a = gpu_vm("pve3", 711, "mapping=gpu");
  auto b = gpu_vm("pve3", 712, "mapping=gpu");
  auto c = gpu_vm("pve3", 713, "mapping=gpu");
  EXPECT_EQ(sim.run_task("POST", a + "/status/start"), "OK");
  EXPECT_EQ(sim.run_task("POST", b + "/status/start"), "OK");
  EXPECT_EQ(sim.run_task("POST", c + "/status/start"),
            "could not find a free device for 'hostpci0'");
  auto devices = host_devices("pve3");
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].at("used_by").as_int64(), 711);
  EXPECT_EQ(devices[1].at("used_by").as_int64(), 712);
  // Stopped and destroyed, the first VM leaves its device to the third.
  EXPECT_EQ(sim.run_task("POST", a + "/status/stop"), "OK");
  EXPECT_EQ(sim.run_task("DELETE", a), "OK");
  EXPECT_EQ(sim.run_task("POST", c + "/status/start"), "OK");
  EXPECT_EQ(host_devices("pve3")[0].at("used_by").as_int64(), 713);
}

TEST_F(PveSimPciMapping, AMappingWithoutADeviceOnTheVmsHostFailsTheStart) {
  auto vm = gpu_vm("pve1", 721, "mapping=gpu");
  EXPECT_EQ(sim.run_task("POST", vm + "/status/start"), "PCI device mapping not found for 'gpu'");
}

TEST_F(PveSimPciMapping, PcieNeedsTheQ35MachineModel) {
  auto vm = gpu_vm("pve2", 731, "mapping=gpu,pcie=1");
  EXPECT_EQ(sim.run_task("POST", vm + "/status/start"), "q35 machine model is not enabled");
  ASSERT_EQ(sim.api("PUT", vm + "/config", {{"machine", "q35"}}).status, 200);
  EXPECT_EQ(sim.run_task("POST", vm + "/status/start"), "OK");
}

TEST_F(PveSimPciMapping, RawHostDevicesAreForRootAndMalformedEntriesAre400s) {
  ASSERT_EQ(sim.run_task("POST", "/nodes/pve2/qemu/9002/clone", {{"newid", "741"}}), "OK");
  auto raw = sim.api("PUT", "/nodes/pve2/qemu/741/config", {{"hostpci0", "0000:01:00.0"}});
  EXPECT_EQ(raw.status, 500);
  EXPECT_EQ(raw.reason, "only root can set 'hostpci0' config for non-mapped devices");
  auto unknown = sim.api("PUT", "/nodes/pve2/qemu/741/config", {{"hostpci0", "mapping=gpu,x=1"}});
  EXPECT_EQ(unknown.status, 400);
  EXPECT_EQ(unknown.json.at("errors").at("hostpci0").as_string(),
            "invalid format - invalid key in comma-separated list property: x\n");
  auto pcie =
      sim.api("PUT", "/nodes/pve2/qemu/741/config", {{"hostpci0", "mapping=gpu,pcie=maybe"}});
  EXPECT_EQ(pcie.status, 400);
  EXPECT_NE(std::string(pcie.json.at("errors").at("hostpci0").as_string())
                .find("hostpci0.pcie: type check ('boolean') failed - got 'maybe'"),
            std::string::npos);
}
