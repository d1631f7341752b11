#include "cmd/karpenter-proxmox/plan/what_if.hpp"

#include <gtest/gtest.h>

#include "cmd/karpenter-proxmox/plan/workload_file.hpp"
#include "config/instance_types_file.hpp"
#include "protocol/kube/codec.hpp"
#include "sim/lab/yaml_json.hpp"
#include "test/support/yaml_objects.hpp"

namespace kp::plan {
namespace {

template <class T>
protocol::shared_objects<T> objects(const std::string& yaml) {
  return test_support::objects_from_yaml<T>(yaml);
}

template <class T>
protocol::shared_objects<T> none() {
  return std::make_shared<protocol::object_map<T>>();
}

actors::region::host_record host(const std::string& name, unsigned cpus, std::uint64_t gib) {
  actors::region::host_record h;
  h.name = name;
  h.status = "online";
  proxmox::node_status s;
  s.cpuinfo.sockets = 1;
  s.cpuinfo.cores = cpus / 2;
  s.cpuinfo.cpus = cpus;
  s.memory_total = gib << 30;
  h.node_status = s;
  return h;
}

// A cluster with the lab's NodePool, node class and unmanaged template, no nodes; one region
// whose template VM is on pve2 only.
what_if_input lab_like(config::node_policy_mode policy) {
  what_if_input in;
  auto& snap = in.world.snapshot;
  snap.synced = true;
  snap.pods = std::make_shared<const protocol::pod_model_map>();
  snap.nodes = none<kube::node>();
  snap.node_claims = none<kube::node_claim>();
  snap.templates = none<kube::proxmox_template>();
  snap.daemon_sets = none<kube::daemon_set>();
  snap.pod_disruption_budgets = none<kube::pod_disruption_budget>();
  snap.volume_attachments = none<kube::volume_attachment>();
  snap.bootstrap_tokens = none<kube::secret>();
  snap.unmanaged_templates = objects<kube::proxmox_unmanaged_template>(R"(
apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxUnmanagedTemplate
metadata: {name: k8s-template}
spec: {templateName: k8s-template}
)");
  snap.node_classes = objects<kube::proxmox_node_class>(R"(
apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxNodeClass
metadata: {name: default}
spec:
  instanceTemplateRef: {kind: ProxmoxUnmanagedTemplate, name: k8s-template}
  metadataOptions: {type: cdrom}
)");
  snap.node_pools = objects<kube::node_pool>(R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.proxmox.sinextra.dev, kind: ProxmoxNodeClass, name: default}
      requirements:
        - {key: kubernetes.io/arch, operator: In, values: [amd64]}
)");
  in.world.cluster_name = "lab";
  region_reading r;
  r.region = "r1";
  r.hosts["pve1"] = host("pve1", 32, 64);
  r.hosts["pve2"] = host("pve2", 32, 64);
  actors::region::vm_record t;
  t.vmid = 9000;
  t.node = "pve2";
  t.name = "k8s-template";
  t.is_template = true;
  auto config = proxmox::parse_vm_config({{"template", "1"}, {"name", "k8s-template"}});
  EXPECT_TRUE(config.ok());
  t.config = *config;
  r.vms[9000] = t;
  in.world.regions.push_back(r);
  in.settings.node_policy = policy;
  auto types = config::load_instance_types(in.settings);
  EXPECT_TRUE(types.ok());
  in.instance_types = *types;
  auto pods = parse_workloads(R"(
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  template:
    spec:
      containers: [{name: a, image: pause, resources: {requests: {cpu: 500m, memory: 512Mi}}}]
---
kind: Pod
metadata: {name: huge}
spec:
  containers: [{name: a, image: pause, resources: {requests: {cpu: "500"}}}]
)",
                              "pods.yaml");
  EXPECT_TRUE(pods.ok()) << (pods.ok() ? "" : pods.error().message);
  in.added = *pods;
  in.now_unix_ms = 1'800'000'000'000;
  return in;
}

TEST(WhatIf, TheAddedPodsGetOneNodeClaimOnTheHostHoldingTheTemplateAndTheHugeOneStaysPending) {
  auto report = run_what_if(lab_like(config::node_policy_mode::simple));
  ASSERT_EQ(report.nodeclaims.size(), 1u);
  const auto& c = report.nodeclaims[0];
  EXPECT_EQ(c.placement_error, "");
  EXPECT_EQ(c.nodepool, "default");
  EXPECT_EQ(c.node_class, "default");
  EXPECT_EQ(c.region, "r1");
  EXPECT_EQ(c.host, "pve2");
  EXPECT_FALSE(c.instance_type.empty());
  EXPECT_EQ(c.instance_types.front(), c.instance_type);
  EXPECT_GT(c.price, 0);
  EXPECT_TRUE(c.numa_nodes.empty());  // the simple policy binds nothing
  EXPECT_EQ(c.pods, (std::vector<std::string>{"default/web-what-if-0", "default/web-what-if-1",
                                              "default/web-what-if-2"}));
  ASSERT_EQ(report.pending.size(), 1u);
  EXPECT_EQ(report.pending[0].pod, "default/huge");
  EXPECT_TRUE(report.pending[0].added);
  EXPECT_FALSE(report.pending[0].reason.empty());
  EXPECT_TRUE(report.removals.empty());
}

TEST(WhatIf, UnderTheStaticPolicyTheNodeClaimGetsNumaNodesAndPinnedCpus) {
  auto report = run_what_if(lab_like(config::node_policy_mode::static_pinning));
  ASSERT_EQ(report.nodeclaims.size(), 1u);
  const auto& c = report.nodeclaims[0];
  EXPECT_EQ(c.host, "pve2");
  ASSERT_EQ(c.numa_nodes.size(), 1u);
  EXPECT_FALSE(c.pinned_cpus.empty());
}

TEST(WhatIf, ARegionThatWasNotReadOffersNothingAndSaysSo) {
  auto in = lab_like(config::node_policy_mode::simple);
  in.world.regions[0].hosts.clear();
  in.world.regions[0].vms.clear();
  in.world.regions[0].error = "cluster resources: timeout: no answer";
  auto report = run_what_if(in);
  ASSERT_FALSE(report.notes.empty());
  EXPECT_NE(report.notes[0].find("region r1 not read"), std::string::npos) << report.notes[0];
  for (const auto& c : report.nodeclaims) EXPECT_EQ(c.host, "");
}

}  // namespace
}  // namespace kp::plan
