#include "cmd/karpenter-proxmox/plan/workload_file.hpp"

#include <gtest/gtest.h>

namespace kp::plan {
namespace {

TEST(WorkloadFile, DeploymentsAndStatefulSetsBecomePendingUnschedulablePodsPerReplica) {
  auto pods = parse_workloads(R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: pause, resources: {requests: {cpu: 250m}}}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: pause}]
---
apiVersion: v1
kind: Pod
metadata: {name: one}
spec:
  nodeName: somewhere
  containers: [{name: app, image: pause}]
)",
                              "pods.yaml");
  ASSERT_TRUE(pods.ok()) << pods.error().message;
  ASSERT_EQ(pods->size(), 4u);
  EXPECT_EQ((*pods)[0].metadata.name, "web-what-if-0");
  EXPECT_EQ((*pods)[0].metadata.namespace_, "shop");
  EXPECT_EQ((*pods)[0].metadata.labels.at("app"), "web");
  EXPECT_EQ((*pods)[1].metadata.name, "web-what-if-1");
  EXPECT_EQ((*pods)[2].metadata.name, "db-0");  // replicas unset: one
  EXPECT_EQ((*pods)[2].metadata.namespace_, "default");
  EXPECT_EQ((*pods)[3].metadata.name, "one");
  for (const auto& p : *pods) {
    EXPECT_EQ(p.metadata.uid.rfind(added_pod_uid_prefix, 0), 0u) << p.metadata.name;
    EXPECT_TRUE(p.spec.node_name.empty()) << p.metadata.name;
    EXPECT_EQ(p.status.phase, "Pending");
    ASSERT_EQ(p.status.conditions.size(), 1u);
    EXPECT_EQ(p.status.conditions[0].reason, "Unschedulable");
  }
  EXPECT_NE((*pods)[0].metadata.uid, (*pods)[1].metadata.uid);
}

TEST(WorkloadFile, ErrorsNameTheFileTheDocumentAndTheField) {
  auto bad_quantity = parse_workloads(R"(
kind: Pod
metadata: {name: fine}
spec: {containers: [{name: a, image: pause}]}
---
kind: ReplicaSet
metadata: {name: rs}
spec:
  replicas: 1
  template:
    spec:
      containers: [{name: a, image: pause, resources: {requests: {memory: many}}}]
)",
                                      "w.yaml");
  ASSERT_FALSE(bad_quantity.ok());
  EXPECT_NE(bad_quantity.error().message.find("w.yaml: document 2 (ReplicaSet rs): "),
            std::string::npos)
      << bad_quantity.error().message;
  EXPECT_NE(bad_quantity.error().message.find("memory"), std::string::npos)
      << bad_quantity.error().message;

  auto wrong_type =
      parse_workloads("kind: Pod\nmetadata: {name: p}\nspec: {containers: 3}\n", "w.yaml");
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_NE(wrong_type.error().message.find("document 1 (Pod p)"), std::string::npos);
  EXPECT_NE(wrong_type.error().message.find("containers"), std::string::npos)
      << wrong_type.error().message;

  auto service = parse_workloads("kind: Service\nmetadata: {name: s}\n", "w.yaml");
  ASSERT_FALSE(service.ok());
  EXPECT_EQ(service.error().message,
            "w.yaml: document 1 (Service s): kind: \"Service\" is not a Pod, Deployment, "
            "ReplicaSet or StatefulSet");
  auto no_kind = parse_workloads("metadata: {name: x}\n", "w.yaml");
  ASSERT_FALSE(no_kind.ok());
  EXPECT_EQ(no_kind.error().message, "w.yaml: document 1: kind: missing");
  auto negative = parse_workloads(
      "kind: Deployment\nmetadata: {name: d}\nspec: {replicas: -1, template: {spec: "
      "{containers: []}}}\n",
      "w.yaml");
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.error().message.find("spec.replicas"), std::string::npos);
  auto not_yaml = parse_workloads("kind: [unclosed\n", "w.yaml");
  ASSERT_FALSE(not_yaml.ok());
  EXPECT_EQ(not_yaml.error().message.rfind("w.yaml: ", 0), 0u);
  auto empty = parse_workloads("---\n", "w.yaml");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message, "w.yaml: holds no pods");
}

}  // namespace
}  // namespace kp::plan
