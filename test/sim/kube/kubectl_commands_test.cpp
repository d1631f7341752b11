// The kubectl 1.32 commands users type, unchanged, against kube-sim: the imperative creates
// (which send protobuf bodies for built-in kinds), scale through the /scale subresource,
// rollout status, server-side apply of a Deployment, describe, wide tables, delete --wait, and a
// CRD's CEL rules and scale subresource. Skipped, saying why, when kubectl is absent.
#include <fstream>
#include <future>

#include "kubectl_fixture.hpp"
#include "protocol/transport/tls_certificates.hpp"

namespace kp::sim::kube::testing {
namespace {

std::string write_file(const std::string& dir, const std::string& name, const std::string& text) {
  std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST_F(KubectlAgainstKubeSim, CreateNamespaceSecretsAndConfigMapWorkUnchanged) {
  must({"create", "namespace", "team"});
  must({"create", "secret", "generic", "creds", "-n", "team", "--from-literal=user=admin",
        "--from-literal=pass=s3cret"});
  auto data = kubectl(
      {"get", "secret", "creds", "-n", "team", "-o", "jsonpath={.type} {.data.user} {.data.pass}"});
  EXPECT_EQ(data.out, "Opaque YWRtaW4= czNjcmV0") << data.err;

  auto ca = transport::certificate_authority::create("kubectl-test-ca");
  ASSERT_TRUE(ca);
  auto pair = ca.value().issue_server({"web.example.com"}, {});
  ASSERT_TRUE(pair);
  auto cert = write_file(sim_->work_dir(), "tls.crt", pair.value().certificate_pem);
  auto key = write_file(sim_->work_dir(), "tls.key", pair.value().private_key_pem);
  must({"create", "secret", "tls", "web-tls", "-n", "team", "--cert", cert, "--key", key});
  auto tls = kubectl({"get", "secret", "web-tls", "-n", "team", "-o", "jsonpath={.type}"});
  EXPECT_EQ(tls.out, "kubernetes.io/tls") << tls.err;
  auto crt =
      kubectl({"get", "secret", "web-tls", "-n", "team", "-o", "jsonpath={.data.tls\\.crt}"});
  EXPECT_FALSE(crt.out.empty());

  must({"create", "configmap", "settings", "-n", "team", "--from-literal=mode=fast"});
  auto cm = kubectl({"get", "configmap", "settings", "-n", "team", "-o", "jsonpath={.data.mode}"});
  EXPECT_EQ(cm.out, "fast");
  auto dup = kubectl({"create", "configmap", "settings", "-n", "team"});
  EXPECT_NE(dup.exit_code, 0);
  EXPECT_NE(dup.err.find("configmaps \"settings\" already exists"), std::string::npos) << dup.err;
}

TEST_F(KubectlAgainstKubeSim, CreateDeploymentAndJobStoreTheirTemplates) {
  must({"create", "deployment", "web", "--image=nginx:1.25", "--replicas=3", "--port=80"});
  auto d = kubectl({"get", "deployment", "web", "-o",
                    "jsonpath={.spec.replicas} {.spec.selector.matchLabels.app} "
                    "{.spec.template.spec.containers[0].image} "
                    "{.spec.template.spec.containers[0].ports[0].containerPort}"});
  EXPECT_EQ(d.out, "3 web nginx:1.25 80") << d.err;
  must({"create", "job", "once", "--image=busybox:1.36", "--", "echo", "hi"});
  auto j = kubectl({"get", "job", "once", "-o",
                    "jsonpath={.spec.template.spec.restartPolicy} "
                    "{.spec.template.spec.containers[0].command}"});
  EXPECT_EQ(j.out, "Never [\"echo\",\"hi\"]") << j.err;
}

TEST_F(KubectlAgainstKubeSim, ScaleDeploymentGoesThroughTheScaleSubresource) {
  must({"create", "deployment", "web", "--image=nginx:1.25", "--replicas=2"});
  must({"scale", "deployment", "web", "--replicas=5"});
  auto r = kubectl({"get", "deployment", "web", "-o", "jsonpath={.spec.replicas}"});
  EXPECT_EQ(r.out, "5") << r.err;
  auto scale = kubectl({"get", "--raw", "/apis/apps/v1/namespaces/default/deployments/web/scale"});
  EXPECT_NE(scale.out.find("\"kind\":\"Scale\""), std::string::npos) << scale.out << scale.err;
  EXPECT_NE(scale.out.find("\"selector\":\"app=web\""), std::string::npos) << scale.out;
  auto stale = kubectl({"scale", "deployment", "web", "--replicas=1", "--current-replicas=3"});
  EXPECT_NE(stale.exit_code, 0) << "the --current-replicas precondition fails";
}

TEST_F(KubectlAgainstKubeSim, RolloutStatusFinishesWhenTheDeploymentIsAvailable) {
  must({"create", "-f", "-"}, node_yaml("worker-1"));
  must({"create", "deployment", "web", "--image=nginx:1.25", "--replicas=2"});
  auto rollout = std::async(std::launch::async, [&] {
    return kubectl({"rollout", "status", "deployment/web", "--timeout=60s"}, "", 70s);
  });
  // Whichever Deployment controller runs (or none), the status below is what it reports once
  // the rollout is done; rollout status must then finish.
  auto gen = kubectl({"get", "deployment", "web", "-o", "jsonpath={.metadata.generation}"}).out;
  ASSERT_FALSE(gen.empty());
  auto deadline = std::chrono::steady_clock::now() + 50s;
  while (rollout.wait_for(200ms) != std::future_status::ready &&
         std::chrono::steady_clock::now() < deadline) {
    kubectl(
        {"patch", "deployment", "web", "--subresource=status", "--type=merge", "-p",
         R"({"status":{"observedGeneration":)" + gen +
             R"(,"replicas":2,"updatedReplicas":2,"readyReplicas":2,"availableReplicas":2,)"
             R"("conditions":[{"type":"Available","status":"True","reason":"MinimumReplicasAvailable"},)"
             R"({"type":"Progressing","status":"True","reason":"NewReplicaSetAvailable"}]}})"});
  }
  auto r = rollout.get();
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("successfully rolled out"), std::string::npos) << r.out;
}

TEST_F(KubectlAgainstKubeSim, ServerSideApplyOfADeploymentCreatesThenUpdates) {
  const std::string deployment = R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: api, labels: {app: api}}
spec:
  replicas: REPLICAS
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
      - name: api
        image: IMAGE
        resources: {requests: {cpu: 100m, memory: 64Mi}}
)";
  auto with = [&](const std::string& replicas, const std::string& image) {
    auto s = deployment;
    s.replace(s.find("REPLICAS"), 8, replicas);
    s.replace(s.find("IMAGE"), 5, image);
    return s;
  };
  must({"apply", "--server-side", "-f", "-"}, with("2", "nginx:1.25"));
  must({"apply", "--server-side", "-f", "-"}, with("4", "nginx:1.27"));
  auto r = kubectl({"get", "deployment", "api", "-o",
                    "jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image} "
                    "{.metadata.generation}"});
  EXPECT_EQ(r.out, "4 nginx:1.27 2") << r.err;
}

TEST_F(KubectlAgainstKubeSim, DescribeNodeAndWideNodeTables) {
  must({"create", "-f", "-"}, node_yaml("worker-1"));
  auto d = kubectl({"describe", "node", "worker-1"});
  EXPECT_EQ(d.exit_code, 0) << d.err;
  EXPECT_NE(d.out.find("Name:               worker-1"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("Allocatable:"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("Non-terminated Pods:"), std::string::npos) << d.out;
  auto wide = kubectl({"get", "nodes", "-o", "wide"});
  EXPECT_EQ(wide.exit_code, 0) << wide.err;
  EXPECT_NE(wide.out.find("INTERNAL-IP"), std::string::npos) << wide.out;
  EXPECT_NE(wide.out.find("worker-1"), std::string::npos) << wide.out;
}

TEST_F(KubectlAgainstKubeSim, DeleteWaitReturnsOnceTheDeploymentIsGone) {
  must({"create", "deployment", "web", "--image=nginx:1.25"});
  auto r = kubectl({"delete", "deployment", "web", "--wait=true", "--timeout=30s"}, "", 40s);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto gone = kubectl({"get", "deployment", "web"});
  EXPECT_NE(gone.err.find("NotFound"), std::string::npos) << gone.err;
}

TEST_F(KubectlAgainstKubeSim, CrdCelRulesRefuseInvalidObjectsAndScaleNodePools) {
  must({"apply", "-f", "-"}, R"yaml(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: pools.example.com}
spec:
  group: example.com
  scope: Cluster
  names: {plural: pools, singular: pool, kind: Pool}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.nodes}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - {rule: "has(self.replicas) == has(oldSelf.replicas)", message: "Cannot transition between static and dynamic"}
            - {rule: "!has(self.replicas) || !has(self.weight)", message: "'weight' is not supported on static pools"}
            properties:
              replicas: {type: integer}
              weight: {type: integer}
          status:
            type: object
            properties:
              nodes: {type: integer}
)yaml");
  must({"apply", "-f", "-"},
       "apiVersion: example.com/v1\nkind: Pool\nmetadata: {name: static}\nspec: {replicas: 1}\n");
  must({"scale", "pool", "static", "--replicas=3"});
  EXPECT_EQ(kubectl({"get", "pool", "static", "-o", "jsonpath={.spec.replicas}"}).out, "3");
  auto weight = kubectl({"apply", "-f", "-"},
                        "apiVersion: example.com/v1\nkind: Pool\nmetadata: "
                        "{name: weighted}\nspec: {replicas: 1, weight: 2}\n");
  EXPECT_NE(weight.exit_code, 0);
  EXPECT_NE(weight.err.find("spec: Invalid value: \"object\": 'weight' is not supported on static "
                            "pools"),
            std::string::npos)
      << weight.err;
  must({"apply", "-f", "-"},
       "apiVersion: example.com/v1\nkind: Pool\nmetadata: {name: dynamic}\nspec: {weight: 1}\n");
  auto transition = kubectl({"scale", "pool", "dynamic", "--replicas=2"});
  EXPECT_NE(transition.exit_code, 0);
  EXPECT_NE(transition.err.find("Cannot transition between static and dynamic"), std::string::npos)
      << transition.err;
  auto unsupported = kubectl({"apply", "-f", "-"}, R"yaml(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.example.com}
spec:
  group: example.com
  scope: Cluster
  names: {plural: things, singular: thing, kind: Thing}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-validations:
        - rule: "self.metadata.name.quantity() > 1"
)yaml");
  EXPECT_NE(unsupported.exit_code, 0) << "a rule kube-sim cannot evaluate refuses the CRD";
  EXPECT_NE(unsupported.err.find("undeclared reference to 'quantity'"), std::string::npos)
      << unsupported.err;
}

TEST_F(KubectlAgainstKubeSim, PatternsUnderAllOfAreEnforcedAndNonStructuralJunctorsRefused) {
  // The Go provider's bootDevice.size: int-or-string with two patterns under allOf.
  must({"apply", "-f", "-"}, R"yaml(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: disks.example.com}
spec:
  group: example.com
  scope: Cluster
  names: {plural: disks, singular: disk, kind: Disk}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size:
                allOf:
                - pattern: ^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$
                - pattern: ^\d+(T|G|Ti|Gi)$
                anyOf:
                - type: integer
                - type: string
                type: string
                x-kubernetes-int-or-string: true
)yaml");
  must({"apply", "-f", "-"},
       "apiVersion: example.com/v1\nkind: Disk\nmetadata: {name: a}\nspec: {size: 30}\n");
  must({"apply", "-f", "-"},
       "apiVersion: example.com/v1\nkind: Disk\nmetadata: {name: b}\nspec: {size: 50Gi}\n");
  auto mebibytes = kubectl({"apply", "-f", "-"},
                           "apiVersion: example.com/v1\nkind: Disk\nmetadata: {name: c}\n"
                           "spec: {size: 50Mi}\n");
  EXPECT_NE(mebibytes.exit_code, 0);
  EXPECT_NE(mebibytes.err.find("spec.size in body should match '^\\d+(T|G|Ti|Gi)$'"),
            std::string::npos)
      << mebibytes.err;
  auto typed = kubectl({"apply", "-f", "-"}, R"yaml(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: typed.example.com}
spec:
  group: example.com
  scope: Cluster
  names: {plural: typed, singular: typed, kind: Typed}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            allOf:
            - type: object
              x-kubernetes-validations: [{rule: "true"}]
)yaml");
  EXPECT_NE(typed.exit_code, 0) << "a type or CEL rule under allOf is not structural";
  EXPECT_NE(typed.err.find("properties[spec].allOf[0].type: Forbidden: must be empty to be "
                           "structural"),
            std::string::npos)
      << typed.err;
  EXPECT_NE(typed.err.find("allOf[0].x-kubernetes-validations: Forbidden"), std::string::npos)
      << typed.err;
}

}  // namespace
}  // namespace kp::sim::kube::testing
