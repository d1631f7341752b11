// Our CRDs on kube-sim (which runs their schemas and CEL rules as the API server does) accept the
// Go provider's example objects and refuse what upstream's CRDs refuse: restricted labels, an
// immutable nodeClassRef changed, a static NodePool made dynamic, malformed security groups and
// network fields. Skipped, saying why, without kube-sim or kubectl.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "test/sim/kube/kube_sim_process.hpp"

namespace kp::test {
namespace {

namespace fs = std::filesystem;

class CrdRulesKubeSim : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* bin = std::getenv("KP_BIN_DIR");
    if (bin == nullptr || !fs::exists(std::string(bin) + "/kube-sim")) {
      GTEST_SKIP() << "kube-sim not built in $KP_BIN_DIR; build target kube-sim";
    }
    if (!sim::kube::testing::find_kubectl()) GTEST_SKIP() << "kubectl not installed";
    sim_ = std::make_unique<sim::kube::testing::kube_sim_process>();
    ASSERT_TRUE(sim_->ok()) << sim_->error();
    const std::string src = std::getenv("KP_SOURCE_DIR");
    auto r = sim_->kubectl({"apply", "-f", src + "/chart/karpenter-proxmox/crds/"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  sim::kube::testing::command_result apply(const std::string& yaml) {
    return sim_->kubectl({"apply", "-f", "-"}, yaml);
  }

  // Applies `yaml` and expects a refusal whose message contains `why`.
  void refused(const std::string& yaml, const std::string& why) {
    auto r = apply(yaml);
    EXPECT_NE(r.exit_code, 0) << "accepted:\n" << yaml;
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
  }

  std::unique_ptr<sim::kube::testing::kube_sim_process> sim_;
};

const char* pool_head = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: p}
spec:
)";

TEST_F(CrdRulesKubeSim, TheGoProvidersExampleObjectsAreAccepted) {
  // examples/k3s and docs/deploy of the Go provider v0.12.0, as a user keeps them.
  auto r = apply(R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  limits: {cpu: "64", memory: 512Gi}
  template:
    spec:
      nodeClassRef: {group: karpenter.proxmox.sinextra.dev, kind: ProxmoxNodeClass, name: default}
      startupTaints: [{key: karpenter.sh/unregistered, effect: NoExecute}]
      requirements:
        - {key: kubernetes.io/arch, operator: In, values: ["amd64"]}
---
apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxNodeClass
metadata: {name: default}
spec:
  instanceTemplateRef: {kind: ProxmoxUnmanagedTemplate, name: default}
  metadataOptions:
    type: cdrom
    templatesRef: {name: talos-template, namespace: kube-system}
    valuesRef: {name: talos-values, namespace: kube-system}
  kubeletConfiguration:
    allowedUnsafeSysctls: [net.core.somaxconn]
    topologyManagerPolicy: best-effort
  bootDevice: {size: 30Gi, storage: zfs}
  securityGroups: [{name: kubernetes, interface: net0}]
  resourcePool: talos-k8s-proxmox
  tags: [talos-k8s-proxmox, karpenter]
---
apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxUnmanagedTemplate
metadata: {name: default}
spec: {templateName: talos}
---
apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxTemplate
metadata: {name: default}
spec:
  sourceImage:
    url: https://cloud-images.ubuntu.com/noble/current/noble-server-cloudimg-amd64.img
    imageName: ubuntu-amd64.qcow2
  storageIDs: [local, system]
  bios: ovmf
  vga: {type: serial0}
  network:
    - {name: net0, bridge: vmbr0, firewall: true, dnsServers: ["2001:4860:4860::8888"]}
    - {name: net1, bridge: vmbr1, mtu: 1400, address4: 172.16.0.0/24, address6: "fd60:172:16::/64",
       dnsServers: [1.1.1.1]}
  tags: [talos-k8s-proxmox, karpenter]
  resourcePool: talos-k8s-proxmox
)");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // An integer bootDevice.size and a pool with an explicit consolidateAfter: upstream takes both.
  r = apply(R"(apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxNodeClass
metadata: {name: sized}
spec:
  instanceTemplateRef: {kind: ProxmoxUnmanagedTemplate, name: default}
  bootDevice: {size: 32212254720}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: settled}
spec:
  disruption: {consolidateAfter: 30s, budgets: [{nodes: "10%", reasons: [Empty, Drifted]}]}
  template:
    spec:
      nodeClassRef: {group: karpenter.proxmox.sinextra.dev, kind: ProxmoxNodeClass, name: sized}
      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]
)");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(CrdRulesKubeSim, RestrictedLabelsAndBadRequirementsAreRefused) {
  const std::string spec_head = std::string(pool_head) + R"(  template:
)";
  refused(spec_head + R"(    metadata: {labels: {kubernetes.io/hostname: x}}
    spec:
      nodeClassRef: {group: g, kind: K, name: nc}
      requirements: []
)",
          "label \"kubernetes.io/hostname\" is restricted");
  refused(spec_head + R"(    spec:
      nodeClassRef: {group: g, kind: K, name: nc}
      requirements: [{key: karpenter.sh/nodepool, operator: In, values: [a]}]
)",
          "label \"karpenter.sh/nodepool\" is restricted");
  refused(spec_head + R"(    spec:
      nodeClassRef: {group: g, kind: K, name: nc}
      requirements: [{key: example.karpenter.sh/x, operator: Exists}]
)",
          "label domain \"karpenter.sh\" is restricted");
  refused(spec_head + R"(    spec:
      nodeClassRef: {group: g, kind: K, name: nc}
      requirements: [{key: karpenter.proxmox.sinextra.dev/cpu, operator: Gt, values: ["1", "2"]}]
)",
          "must have a single positive integer value");
  refused(std::string(pool_head) +
              R"(  disruption: {consolidateAfter: 0s, budgets: [{nodes: "1", schedule: "@daily"}]}
  template:
    spec:
      nodeClassRef: {group: g, kind: K, name: nc}
      requirements: []
)",
          "'schedule' must be set with 'duration'");
  // As Karpenter v1.14.1: only an absent disruption defaults consolidateAfter.
  refused(std::string(pool_head) + R"(  disruption: {consolidationPolicy: WhenEmpty}
  template:
    spec:
      nodeClassRef: {group: g, kind: K, name: nc}
      requirements: []
)",
          "spec.disruption.consolidateAfter: Required value");
}

TEST_F(CrdRulesKubeSim, NodeClassRefKindAndStaticModeCannotChange) {
  auto r = apply(std::string(pool_head) + R"(  replicas: 2
  template:
    spec:
      nodeClassRef: {group: karpenter.proxmox.sinextra.dev, kind: ProxmoxNodeClass, name: nc}
      requirements: []
)");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = sim_->kubectl({"patch", "nodepool", "p", "--type=merge", "-p",
                     R"({"spec":{"template":{"spec":{"nodeClassRef":{"kind":"Other"}}}}})"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("nodeClassRef.kind is immutable"), std::string::npos) << r.err;
  r = sim_->kubectl({"patch", "nodepool", "p", "--type=json", "-p",
                     R"([{"op":"remove","path":"/spec/replicas"}])"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("Cannot transition NodePool between static"), std::string::npos) << r.err;
  // The scale subresource moves spec.replicas.
  r = sim_->kubectl({"scale", "nodepool", "p", "--replicas=3"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = sim_->kubectl({"get", "nodepool", "p", "-o", "jsonpath={.spec.replicas}"});
  EXPECT_EQ(r.out, "3");
}

TEST_F(CrdRulesKubeSim, MalformedProviderFieldsAreRefused) {
  const std::string nc = R"(apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxNodeClass
metadata: {name: bad}
spec:
  instanceTemplateRef: {kind: ProxmoxUnmanagedTemplate, name: t}
)";
  // bootDevice.size: its quantity patterns sit under allOf, which kube-sim does not check yet.
  refused(nc + "  securityGroups: [{name: k8s, interface: eth0}]\n", "interface");
  const std::string tmpl = R"(apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxTemplate
metadata: {name: bad}
spec:
  sourceImage: {url: "https://example.com/a.img", imageName: a.img}
  storageIDs: [local]
)";
  refused(tmpl + "  network: [{name: \"\", bridge: vmbr0}]\n", "network[0].name");
  refused(tmpl + "  network: [{name: net0, bridge: vmbr0, dnsServers: []}]\n", "dnsServers");
  refused(tmpl + "  network: [{name: net0, bridge: vmbr0, mtu: 100}]\n", "mtu");
}

}  // namespace
}  // namespace kp::test
