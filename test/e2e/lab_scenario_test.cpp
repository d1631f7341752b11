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
#include "sim/lab/world_observation.hpp"
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

TEST(LabScenario, workloadStepsParseWithTheirKindsAndFields) {
  auto s = parse_scenario(R"(
steps:
  - daemonset: {name: agent, namespace: kube-system, cpu: 200m, memory: 256Mi, tolerate_all: true}
  - scale: {name: web, kind: Deployment, replicas: 4, cpu: 500m, memory: 1Gi, image: "nginx:1"}
  - scale: {name: db, kind: StatefulSet, replicas: 3, cpu: "1", memory: 2Gi, storage: 10Gi}
  - rollout: {name: web, image: "nginx:2", cpu: 750m}
  - rollout: {name: agent, kind: DaemonSet, namespace: kube-system, memory: 512Mi}
  - expect: {app_pods: 7, daemon_pods: ">=1", rollouts_pending: 0, pvcs: 3}
)");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->steps.size(), 6u);
  const auto& ds = s->steps[0].scale;
  EXPECT_EQ(s->steps[0].type, scenario_step::kind::scale);
  EXPECT_EQ(ds.kind, "DaemonSet");
  EXPECT_EQ(ds.ns, "kube-system");
  EXPECT_TRUE(ds.tolerate_all);
  EXPECT_EQ(s->steps[1].scale.kind, "Deployment");
  EXPECT_EQ(s->steps[1].scale.image, "nginx:1");
  EXPECT_EQ(s->steps[2].scale.storage, "10Gi");
  EXPECT_EQ(s->steps[3].type, scenario_step::kind::rollout);
  EXPECT_EQ(s->steps[3].rollout.kind, "Deployment");
  EXPECT_EQ(s->steps[3].rollout.cpu, "750m");
  EXPECT_EQ(s->steps[4].rollout.kind, "DaemonSet");
  EXPECT_EQ(s->steps[4].rollout.memory, "512Mi");
  EXPECT_EQ(s->steps[5].expect.conditions.size(), 4u);
}

TEST(LabScenario, workloadStepMistakesAreRefusedNamingTheStepAndField) {
  auto refused = [](const std::string& step, const std::string& says) {
    auto s = parse_scenario("steps:\n  - " + step + "\n");
    ASSERT_FALSE(s.ok()) << step;
    EXPECT_NE(s.error().message.find("step 1"), std::string::npos) << s.error().message;
    EXPECT_NE(s.error().message.find(says), std::string::npos) << s.error().message;
  };
  refused("scale: {name: a, kind: CronJob, replicas: 1}", "CronJob");
  refused("scale: {name: a, kind: Deployment, replicas: 1, storage: 1Gi}", "storage");
  refused("scale: {name: a, replicas: -1}", "replicas");
  refused("daemonset: {name: a, replicas: 3}", "one pod per node");
  refused("rollout: {name: a}", "image, cpu or memory");
  refused("rollout: {name: a, kind: ReplicaSet, image: x}", "ReplicaSet");
  refused("expect: {pods: \"about 3\"}", "about 3");
}

TEST(LabScenario, workloadManifestsCarryTheKindRequestsAndClaimTemplate) {
  scale_step s;
  s.name = "db";
  s.kind = "StatefulSet";
  s.replicas = 3;
  s.cpu = "1";
  s.storage = "5Gi";
  auto sts = boost::json::parse(workload_manifest(s)).as_object();
  EXPECT_EQ(sts.at("kind").as_string(), "StatefulSet");
  EXPECT_EQ(sts.at("spec").at("serviceName").as_string(), "db");
  const auto& claim = sts.at("spec").at("volumeClaimTemplates").as_array()[0];
  EXPECT_EQ(claim.at("metadata").at("name").as_string(), "data");
  EXPECT_EQ(claim.at("spec").at("resources").at("requests").at("storage").as_string(), "5Gi");
  s = scale_step{};
  s.name = "agent";
  s.kind = "DaemonSet";
  s.tolerate_all = true;
  auto ds = boost::json::parse(workload_manifest(s)).as_object();
  EXPECT_FALSE(ds.at("spec").as_object().contains("replicas"));
  const auto& pod = ds.at("spec").at("template").at("spec");
  EXPECT_EQ(pod.at("tolerations").as_array()[0].at("operator").as_string(), "Exists");
  EXPECT_EQ(pod.at("containers").as_array()[0].at("resources").at("requests").at("cpu").as_string(),
            scale_step::default_cpu);
  s.kind = "Deployment";
  EXPECT_EQ(boost::json::parse(replica_set_manifest(s)).at("kind").as_string(), "ReplicaSet");
}

TEST(LabObservation, rolledOutFollowsKubectlRolloutStatus) {
  auto obj = [](const std::string& text) { return boost::json::parse(text).as_object(); };
  EXPECT_TRUE(rolled_out("Deployment", obj(R"({"metadata":{"generation":2},"spec":{"replicas":3},
    "status":{"observedGeneration":2,"replicas":3,"updatedReplicas":3,"availableReplicas":3}})")));
  EXPECT_FALSE(rolled_out("Deployment", obj(R"({"metadata":{"generation":3},"spec":{"replicas":3},
    "status":{"observedGeneration":2,"replicas":3,"updatedReplicas":3,"availableReplicas":3}})")))
      << "a spec change not yet observed";
  EXPECT_FALSE(rolled_out("Deployment", obj(R"({"metadata":{"generation":2},"spec":{"replicas":3},
    "status":{"observedGeneration":2,"replicas":4,"updatedReplicas":3,"availableReplicas":3}})")))
      << "an old replica still terminating";
  EXPECT_FALSE(rolled_out("DaemonSet", obj(R"({"metadata":{"generation":1},
    "status":{"observedGeneration":1,"desiredNumberScheduled":3,"updatedNumberScheduled":3,
    "numberAvailable":2}})")));
  EXPECT_TRUE(rolled_out("StatefulSet", obj(R"({"metadata":{"generation":1},
    "spec":{"replicas":3,"updateStrategy":{"rollingUpdate":{"partition":1}}},
    "status":{"observedGeneration":1,"readyReplicas":3,"updatedReplicas":2,
    "currentRevision":"a","updateRevision":"b"}})")))
      << "a partitioned rollout is complete above its partition";
  EXPECT_FALSE(rolled_out("StatefulSet", obj(R"({"metadata":{"generation":1},"spec":{"replicas":3},
    "status":{"observedGeneration":1,"readyReplicas":3,"currentRevision":"a","updateRevision":"b"}})")));
}

}  // namespace
}  // namespace kp::lab
