// The lab's pure parts: scenario parsing, YAML to JSON, and how Proxmox requests are counted.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "sim/lab/controller_metrics.hpp"
#include "sim/lab/proxmox_calls.hpp"
#include "sim/lab/scenario.hpp"
#include "sim/lab/scenario_runner.hpp"
#include "sim/lab/yaml_json.hpp"

namespace kp::lab {
namespace {

TEST(LabScenario, theDefaultScenarioParsesAndEndsWithTheRemovalOfItsPods) {
  auto s = parse_scenario(default_scenario_yaml());
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_GE(s->steps.size(), 5u);
  int pods = 0;
  for (const auto& st : s->steps)
    if (st.type == scenario_step::kind::scale) pods += st.scale.replicas;
  EXPECT_EQ(pods, 30);
  bool waits_for_gone = false;
  for (const auto& st : s->steps)
    if (st.type == scenario_step::kind::expect && st.expect.conditions.count("pods") &&
        st.expect.conditions.at("pods").value == 0 && !st.expect.optional)
      waits_for_gone = true;
  EXPECT_TRUE(waits_for_gone);
}

TEST(LabScenario, everyScenarioFileOfTheLabParses) {
  const char* source = std::getenv("KP_SOURCE_DIR");
  ASSERT_NE(source, nullptr);
  int files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(source) + "/sim/lab/scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    std::ifstream in(entry.path());
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto s = parse_scenario(text);
    EXPECT_TRUE(s.ok()) << entry.path() << ": " << (s.ok() ? "" : s.error().message);
    ++files;
  }
  EXPECT_GE(files, 2);
}

TEST(LabScenario, everyStepKindParsesWithItsFields) {
  auto s = parse_scenario(R"(
name: all kinds
settings: {batch-idle-duration: 100ms}
steps:
  - apply: |
      apiVersion: v1
      kind: Namespace
      metadata: {name: x}
  - scale: {name: web, replicas: 3, cpu: 1, memory: 2Gi, namespace: x, node_selector: {zone: a}}
  - delete: {kind: NodeClaim, all: true}
  - fault: {errors: [{path: "*", status: 500}]}
  - fault: clear
  - expect: {pods_running: ">=3", vms: "<5", nodes: 2, within: 1.5s, optional: true}
)");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->settings.at("batch-idle-duration"), "100ms");
  ASSERT_EQ(s->steps.size(), 6u);
  EXPECT_NE(s->steps[0].manifest.find("kind: Namespace"), std::string::npos);
  EXPECT_EQ(s->steps[1].scale.ns, "x");
  EXPECT_EQ(s->steps[1].scale.cpu, "1");
  EXPECT_EQ(s->steps[1].scale.node_selector.at("zone"), "a");
  EXPECT_EQ(s->steps[2].remove.api_version, "karpenter.sh/v1");
  EXPECT_TRUE(s->steps[2].remove.all);
  EXPECT_NE(s->steps[3].faults.find("errors"), std::string::npos);
  EXPECT_TRUE(s->steps[4].faults.empty());
  const auto& e = s->steps[5].expect;
  EXPECT_EQ(e.within, std::chrono::milliseconds(1500));
  EXPECT_TRUE(e.optional);
  EXPECT_TRUE(e.conditions.at("pods_running").holds(3));
  EXPECT_FALSE(e.conditions.at("pods_running").holds(2));
  EXPECT_TRUE(e.conditions.at("vms").holds(4));
  EXPECT_FALSE(e.conditions.at("vms").holds(5));
  EXPECT_TRUE(e.conditions.at("nodes").holds(2));
  EXPECT_FALSE(e.conditions.at("nodes").holds(3));
}

TEST(LabScenario, mistakesAreRefusedNamingTheStep) {
  auto unknown = parse_scenario("steps:\n  - scale: {name: a, replicas: 1}\n  - jump: {}\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("step 2"), std::string::npos) << unknown.error().message;
  auto condition = parse_scenario("steps:\n  - expect: {pods_runing: 3}\n");
  ASSERT_FALSE(condition.ok());
  EXPECT_NE(condition.error().message.find("pods_runing"), std::string::npos);
  auto duration = parse_scenario("steps:\n  - expect: {pods: 3, within: soon}\n");
  ASSERT_FALSE(duration.ok());
  EXPECT_NE(duration.error().message.find("within"), std::string::npos);
  EXPECT_FALSE(parse_scenario("steps: []\n").ok());
  EXPECT_FALSE(parse_scenario("steps:\n  - scale: {replicas: 1}\n").ok());
}

TEST(LabYaml, plainScalarsResolveAsYamlAndQuotedOnesStayStrings) {
  auto docs = yaml_documents_to_json(
      "a: 1\nb: \"1\"\nc: true\nd: 1.5\ne: 250m\nf: ~\ng: [x, 2]\n---\n---\nh: 0\n");
  ASSERT_TRUE(docs.ok());
  ASSERT_EQ(docs->size(), 2u);
  const auto& o = (*docs)[0].as_object();
  EXPECT_TRUE(o.at("a").is_int64());
  EXPECT_TRUE(o.at("b").is_string());
  EXPECT_TRUE(o.at("c").is_bool());
  EXPECT_TRUE(o.at("d").is_double());
  EXPECT_EQ(o.at("e").as_string(), "250m");
  EXPECT_TRUE(o.at("f").is_null());
  EXPECT_EQ(o.at("g").as_array()[1].as_int64(), 2);
  EXPECT_FALSE(yaml_documents_to_json("a: [").ok());
}

TEST(LabProxmoxCalls, creationRequestsAreCountedApartFromPollsInventoryAndDeletion) {
  EXPECT_EQ(classify_proxmox_request("POST", "/nodes/{node}/qemu/{vmid}/clone"), "creation");
  EXPECT_EQ(classify_proxmox_request("POST", "/api2/json/nodes/{node}/qemu/{vmid}/config"),
            "creation");
  EXPECT_EQ(classify_proxmox_request("PUT", "/nodes/{node}/qemu/{vmid}/resize"), "creation");
  EXPECT_EQ(classify_proxmox_request("POST", "/nodes/{node}/storage/{storage}/upload"), "creation");
  EXPECT_EQ(classify_proxmox_request("PUT", "/nodes/{node}/qemu/{vmid}/firewall/options"),
            "creation");
  EXPECT_EQ(classify_proxmox_request("POST", "/nodes/{node}/qemu/{vmid}/status/start"), "creation");
  EXPECT_EQ(classify_proxmox_request("GET", "/nodes/{node}/tasks/{upid}/status"), "task_polls");
  EXPECT_EQ(classify_proxmox_request("GET", "/nodes/{node}/qemu/{vmid}/config"), "inventory");
  EXPECT_EQ(classify_proxmox_request("GET", "/cluster/resources"), "inventory");
  EXPECT_EQ(classify_proxmox_request("DELETE", "/nodes/{node}/qemu/{vmid}"), "deletion");
  EXPECT_EQ(classify_proxmox_request("POST", "/nodes/{node}/qemu/{vmid}/status/stop"), "deletion");
  EXPECT_EQ(classify_proxmox_request("DELETE", "/nodes/{node}/storage/{storage}/content/{volume}"),
            "after_start");
}

TEST(LabControllerMetrics, samplesOfAFamilyAreSummedAcrossLabels) {
  auto m = sum_metric_families(
      "# HELP karpenter_nodeclaims_created_total x\n"
      "# TYPE karpenter_nodeclaims_created_total counter\n"
      "karpenter_nodeclaims_created_total{nodepool=\"a b\",reason=\"provisioning\"} 3\n"
      "karpenter_nodeclaims_created_total{nodepool=\"c\"} 2\n"
      "karpenter_build_info 1\n"
      "broken{x=\"1\"} NaNx\n");
  EXPECT_EQ(m.at("karpenter_nodeclaims_created_total"), 5);
  EXPECT_EQ(m.at("karpenter_build_info"), 1);
}

TEST(LabProxmoxCalls, configTasksAfterAVmsFirstStartAreNotCreation) {
  std::vector<task_entry> tasks{
      {1, "qmclone", "101"},  {2, "qmconfig", "101"}, {3, "qmstart", "101"},
      {4, "qmclone", "102"},  {5, "qmconfig", "102"}, {6, "qmconfig", "101"},
      {7, "qmconfig", "103"}, {8, "qmstart", "102"},  {9, "qmconfig", "102"}};
  EXPECT_EQ(config_tasks_after_start(tasks), 2);
}

TEST(LabScenario, aScaleStepBecomesAReplicaSetWithTheRequests) {
  scale_step s;
  s.name = "web";
  s.replicas = 4;
  s.cpu = "250m";
  s.memory = "512Mi";
  auto rs = boost::json::parse(replica_set_manifest(s)).as_object();
  EXPECT_EQ(rs.at("kind").as_string(), "ReplicaSet");
  EXPECT_EQ(rs.at("spec").at("replicas").as_int64(), 4);
  const auto& c = rs.at("spec").at("template").at("spec").at("containers").as_array()[0];
  EXPECT_EQ(c.at("resources").at("requests").at("cpu").as_string(), "250m");
  EXPECT_EQ(c.at("resources").at("requests").at("memory").as_string(), "512Mi");
}

}  // namespace
}  // namespace kp::lab
