// kubectl 1.32 (a client nobody here wrote) against a real kube-sim process: the proof that the
// simulator speaks the protocol faithfully. Skipped, saying why, when kubectl is absent.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <future>
#include <thread>

#include "kubectl_fixture.hpp"

namespace kp::sim::kube::testing {
namespace {

using namespace std::chrono_literals;

const char* kPod = R"(apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  containers: [{name: c, image: "nginx:1.25", resources: {requests: {cpu: 100m, memory: 64Mi}}}]
)";

const char* kCrd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer, minimum: 1, maximum: 10}
              color: {type: string, enum: [red, blue], default: red}
)";

TEST_F(KubectlAgainstKubeSim, GetNamespacesListsTheFourStartupNamespaces) {
  auto r = kubectl({"get", "ns"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"})
    EXPECT_NE(r.out.find(ns), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Active"), std::string::npos) << "Table columns are printed: " << r.out;
  auto cm = kubectl({"get", "configmap", "kube-root-ca.crt", "-n", "kube-system", "-o",
                     "jsonpath={.data.ca\\.crt}"});
  EXPECT_NE(cm.out.find("BEGIN CERTIFICATE"), std::string::npos) << cm.err;
}

TEST_F(KubectlAgainstKubeSim, AppliedPodIsScheduledOntoTheNodeAndRuns) {
  must({"create", "-f", "-"}, node_yaml("worker-1"));
  must({"apply", "-f", "-"}, kPod);
  EXPECT_TRUE(eventually({"get", "pod", "web", "-o", "jsonpath={.status.phase}/{.spec.nodeName}"},
                         "Running/worker-1"))
      << last_;
  auto again = kubectl({"apply", "-f", "-"}, kPod);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("unchanged"), std::string::npos) << again.out;
  auto yaml = kubectl({"get", "pod", "web", "-o", "yaml"});
  EXPECT_NE(yaml.out.find("resourceVersion:"), std::string::npos);
  EXPECT_NE(yaml.out.find("uid:"), std::string::npos);
  EXPECT_NE(yaml.out.find("creationTimestamp:"), std::string::npos);
}

TEST_F(KubectlAgainstKubeSim, PodThatFitsNowhereIsMarkedUnschedulable) {
  must({"apply", "-f", "-"}, kPod);
  EXPECT_TRUE(eventually({"get", "pod", "web", "-o",
                          "jsonpath={.status.conditions[?(@.type==\"PodScheduled\")].reason}"},
                         "Unschedulable"))
      << last_;
}

TEST_F(KubectlAgainstKubeSim, CrdIsServedWithDefaultsValidationAndPrinterColumns) {
  must({"apply", "-f", "-"}, kCrd);
  must({"apply", "-f", "-"},
       "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 3}\n");
  auto color = kubectl({"get", "widget", "w1", "-o", "jsonpath={.spec.color}"});
  EXPECT_EQ(color.out, "red") << "the schema default is applied: " << color.err;
  auto table = kubectl({"get", "wd"});
  EXPECT_NE(table.out.find("SIZE"), std::string::npos) << table.out;
  auto invalid = kubectl({"apply", "-f", "-"},
                         "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w2}\nspec: "
                         "{size: 30, color: green}\n");
  EXPECT_NE(invalid.exit_code, 0);
  EXPECT_NE(invalid.err.find("spec.size"), std::string::npos) << invalid.err;
  EXPECT_NE(invalid.err.find("Unsupported value: \"green\""), std::string::npos) << invalid.err;
  auto missing = kubectl(
      {"apply", "-f", "-"},
      "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w3}\nspec: {color: blue}\n");
  EXPECT_NE(missing.err.find("spec.size: Required value"), std::string::npos) << missing.err;
  auto unknown = kubectl({"apply", "-f", "-"},
                         "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w4}\nspec: "
                         "{size: 1, extra: 1}\n");
  EXPECT_NE(unknown.err.find("unknown field \"spec.extra\""), std::string::npos) << unknown.err;
}

TEST_F(KubectlAgainstKubeSim, PatchesOfEveryKindAndStrategicRefusedWith415OnCustomResources) {
  must({"create", "-f", "-"}, node_yaml("worker-1"));
  must({"patch", "node", "worker-1", "--type", "merge", "-p",
        R"({"metadata":{"labels":{"a":"1"}}})"});
  must({"patch", "node", "worker-1", "--type", "json", "-p",
        R"([{"op":"add","path":"/metadata/labels/b","value":"2"}])"});
  must({"patch", "node", "worker-1", "-p",
        R"({"spec":{"taints":[{"key":"k","value":"v","effect":"NoSchedule"}]}})"});
  auto labels = kubectl({"get", "node", "worker-1", "-o",
                         "jsonpath={.metadata.labels.a}{.metadata.labels.b}{.spec.taints[0].key}"});
  EXPECT_EQ(labels.out, "12k");
  auto failed_test = kubectl({"patch", "node", "worker-1", "--type", "json", "-p",
                              R"([{"op":"test","path":"/metadata/labels/a","value":"9"}])"});
  EXPECT_NE(failed_test.exit_code, 0);
  must({"apply", "-f", "-"}, kCrd);
  must({"apply", "-f", "-"},
       "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 3}\n");
  must({"patch", "widget", "w1", "--type", "merge", "-p", R"({"spec":{"size":4}})"});
  must({"patch", "widget", "w1", "--type", "json", "-p",
        R"([{"op":"replace","path":"/spec/size","value":5}])"});
  auto strategic =
      kubectl({"patch", "widget", "w1", "--type", "strategic", "-p", R"({"spec":{"size":6}})"});
  EXPECT_NE(strategic.exit_code, 0);
  EXPECT_NE(strategic.err.find("the body of the request was in an unknown format"),
            std::string::npos)
      << strategic.err;
  auto size = kubectl({"get", "widget", "w1", "-o", "jsonpath={.spec.size}"});
  EXPECT_EQ(size.out, "5");
}

TEST_F(KubectlAgainstKubeSim, LabelAndCordonChangeTheNode) {
  must({"create", "-f", "-"}, node_yaml("worker-1"));
  must({"label", "node", "worker-1", "role=edge"});
  must({"cordon", "worker-1"});
  auto r = kubectl(
      {"get", "node", "worker-1", "-o", "jsonpath={.metadata.labels.role}/{.spec.unschedulable}"});
  EXPECT_EQ(r.out, "edge/true");
  auto table = kubectl({"get", "nodes"});
  EXPECT_NE(table.out.find("SchedulingDisabled"), std::string::npos) << table.out;
  must({"uncordon", "worker-1"});
}

TEST_F(KubectlAgainstKubeSim, GetWatchStreamsChangesAsTheyHappen) {
  must({"apply", "-f", "-"}, kPod);
  // The watch runs until it has shown the new pod (or a generous deadline on a loaded machine).
  auto watch = std::async(std::launch::async, [&] {
    return sim_->kubectl({"get", "pods", "-w"}, "", 60s, [](const std::string& out) {
      return out.find("api ") != std::string::npos;
    });
  });
  // Wait until the watch is registered, then make a change it must show.
  auto deadline = std::chrono::steady_clock::now() + 30s;
  bool watching = false;
  while (!watching && std::chrono::steady_clock::now() < deadline) {
    auto stats = kubectl({"get", "--raw", "/sim/v1/stats"});
    watching = stats.out.find("\"watches\":0") == std::string::npos && stats.exit_code == 0;
  }
  ASSERT_TRUE(watching);
  must({"label", "pod", "web", "changed=yes"});
  must({"create", "-f", "-"},
       std::string(kPod).replace(std::string(kPod).find("name: web"), 9, "name: api"));
  auto r = watch.get();
  EXPECT_TRUE(r.stopped_early) << "the watch streams until stopped: " << r.out;
  EXPECT_NE(r.out.find("web"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("api"), std::string::npos)
      << "a pod created during the watch shows up: " << r.out;
  EXPECT_EQ(r.out.find("<unknown>"), std::string::npos) << "no unsolicited bookmarks: " << r.out;
}

TEST_F(KubectlAgainstKubeSim, DrainEvictsThroughThePdbAndWaitsUntilItAllows) {
  must({"create", "-f", "-"}, node_yaml("worker-1"));
  must({"apply", "-f", "-"}, R"(apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: app}
spec:
  replicas: 3
  selector: {matchLabels: {app: app}}
  template:
    metadata: {labels: {app: app}}
    spec:
      containers: [{name: c, image: "busybox:1.36", resources: {requests: {cpu: 100m}}}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: app-pdb}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: app}}
)");
  ASSERT_TRUE(eventually({"get", "rs", "app", "-o", "jsonpath={.status.readyReplicas}"}, "3"))
      << last_;
  ASSERT_TRUE(
      eventually({"get", "pdb", "app-pdb", "-o", "jsonpath={.status.disruptionsAllowed}"}, "1"))
      << last_;
  auto drain = std::async(std::launch::async, [&] {
    return kubectl({"drain", "worker-1", "--ignore-daemonsets", "--timeout=60s"}, "", 70s);
  });
  // One eviction is allowed; its replacement cannot run on the cordoned node, so the budget then
  // blocks the other two until another node gives the replacement a place to become healthy.
  auto deadline = std::chrono::steady_clock::now() + 15s;
  std::string on_node, pending;
  while (std::chrono::steady_clock::now() < deadline &&
         (std::count(on_node.begin(), on_node.end(), '\n') != 2 || pending.empty())) {
    on_node =
        kubectl({"get", "pods", "--field-selector", "spec.nodeName=worker-1", "-o", "name"}).out;
    pending =
        kubectl({"get", "pods", "--field-selector", "status.phase=Pending", "-o", "name"}).out;
  }
  EXPECT_EQ(std::count(on_node.begin(), on_node.end(), '\n'), 2) << on_node;
  EXPECT_FALSE(pending.empty()) << "the replacement waits for a node";
  EXPECT_EQ(drain.wait_for(0s), std::future_status::timeout) << "drain is blocked by the budget";
  must({"create", "-f", "-"}, node_yaml("worker-2"));
  auto r = drain.get();
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("disruption budget"), std::string::npos)
      << "evictions were refused with 429 first: " << r.err;
  EXPECT_NE(r.out.find("drained"), std::string::npos) << r.out;
  auto left = kubectl({"get", "pods", "--field-selector", "spec.nodeName=worker-1", "-o", "name"});
  EXPECT_EQ(left.out, "");
}

TEST_F(KubectlAgainstKubeSim, DeleteWaitsUntilTheLastFinalizerIsRemoved) {
  must({"create", "-f", "-"},
       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: held, finalizers: [example.com/hold]}\n");
  auto del = std::async(std::launch::async, [&] {
    return kubectl({"delete", "configmap", "held", "--timeout=30s"}, "", 40s);
  });
  // The object is kept, marked for deletion, until the finalizer goes.
  auto deadline = std::chrono::steady_clock::now() + 10s;
  std::string ts;
  while (ts.empty() && std::chrono::steady_clock::now() < deadline)
    ts = kubectl({"get", "configmap", "held", "-o", "jsonpath={.metadata.deletionTimestamp}"}).out;
  ASSERT_FALSE(ts.empty());
  EXPECT_EQ(del.wait_for(0s), std::future_status::timeout);
  must({"patch", "configmap", "held", "--type", "json", "-p",
        R"([{"op":"remove","path":"/metadata/finalizers"}])"});
  auto r = del.get();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto gone = kubectl({"get", "configmap", "held"});
  EXPECT_NE(gone.err.find("NotFound"), std::string::npos) << gone.err;
}

TEST_F(KubectlAgainstKubeSim, ServerSideApplyCreatesThenUpdates) {
  must({"apply", "--server-side", "-f", "-"},
       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa}\ndata: {a: '1'}\n");
  must({"apply", "--server-side", "-f", "-"},
       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa}\ndata: {a: '2'}\n");
  auto r = kubectl({"get", "configmap", "ssa", "-o", "jsonpath={.data.a}"});
  EXPECT_EQ(r.out, "2");
}

std::string chart_dir() {
  const char* src = std::getenv("KP_SOURCE_DIR");  // set for every test binary (kp_test_main)
  return std::string(src ? src : ".") + "/chart/karpenter-proxmox/";
}

TEST_F(KubectlAgainstKubeSim, ChartCrdsAndExampleObjectsApplyWithDefaultValidation) {
  must({"apply", "-f", chart_dir() + "crds/"});
  must({"apply", "-f", chart_dir() + "examples/nodepool.yaml"});
  must({"apply", "-f", chart_dir() + "examples/proxmoxnodeclass.yaml"});
  auto r =
      kubectl({"get", "nodepool", "default", "-o", "jsonpath={.spec.template.spec.expireAfter}"});
  EXPECT_EQ(r.out, "720h") << "NodePool defaults come from the CRD schema: " << r.err;
  auto list = kubectl({"get", "nodepools,proxmoxnodeclasses"});
  EXPECT_NE(list.out.find("default"), std::string::npos) << list.out << list.err;
}

TEST_F(KubectlAgainstKubeSim, NodeClassPlacementAcceptsEveryStrategyAndRefusesOthers) {
  must({"apply", "-f", chart_dir() + "crds/"});
  auto node_class = [](const std::string& name, const std::string& placement) {
    return "apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1\nkind: ProxmoxNodeClass\n"
           "metadata: {name: " +
           name +
           "}\nspec:\n"
           "  instanceTemplateRef: {kind: ProxmoxUnmanagedTemplate, name: k8s}\n"
           "  placementStrategy: " +
           placement + "\n";
  };
  for (std::string s :
       {"Balanced", "AvailabilityFirst", "Spread", "MaxMemory", "MaxCPU", "RoundRobin", "Pack"}) {
    std::string name = "pc-" + std::to_string(std::hash<std::string>{}(s) % 100000);
    must({"apply", "-f", "-"},
         node_class(name, "{zoneBalance: " + s +
                              ", excludedZones: [pve3], minFreeCPU: 2, minFreeMemory: 8Gi}"));
  }
  auto bad = kubectl({"apply", "-f", "-"}, node_class("fastest", "{zoneBalance: Fastest}"));
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("zoneBalance"), std::string::npos) << bad.err;
  auto bad_memory = kubectl({"apply", "-f", "-"}, node_class("lots", "{minFreeMemory: lots}"));
  EXPECT_NE(bad_memory.exit_code, 0);
  EXPECT_NE(bad_memory.err.find("minFreeMemory"), std::string::npos) << bad_memory.err;
}

}  // namespace
}  // namespace kp::sim::kube::testing
