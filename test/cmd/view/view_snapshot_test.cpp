#include "cmd/karpenter-proxmox/view/view_snapshot.hpp"

#include <gtest/gtest.h>

#include "config/instance_types_file.hpp"
#include "protocol/kube/codec.hpp"
#include "protocol/kube/model_translation.hpp"
#include "sim/lab/yaml_json.hpp"
#include "test/support/yaml_objects.hpp"

namespace kp::view {
namespace {

constexpr std::int64_t now_ms = 1'800'000'000'000;
constexpr std::int64_t gib = std::int64_t{1} << 30;

template <class T>
protocol::shared_objects<T> objects(const std::string& yaml) {
  return test_support::objects_from_yaml<T>(yaml);
}

std::string ago(std::int64_t seconds) {
  return kube::format_rfc3339(now_ms - seconds * 1000);
}

actors::region::host_record host(const std::string& name, const std::string& status) {
  actors::region::host_record h;
  h.name = name;
  h.status = status;
  proxmox::node_status s;
  s.cpuinfo.sockets = 2;
  s.cpuinfo.cores = 16;
  s.cpuinfo.cpus = 32;
  s.memory_total = 64ULL << 30;
  h.node_status = s;
  return h;
}

actors::region::vm_record vm(std::uint32_t vmid, const std::string& node, const std::string& name,
                             std::map<std::string, std::string> raw) {
  actors::region::vm_record v;
  v.vmid = vmid;
  v.node = node;
  v.name = name;
  v.status = "running";
  raw["name"] = name;
  auto config = proxmox::parse_vm_config(raw);
  EXPECT_TRUE(config.ok()) << (config.ok() ? "" : config.error().message);
  if (config.ok()) v.config = *config;
  return v;
}

struct fixture_world {
  plan::live_world world;
  std::string four_cpu_type;
  std::vector<instance_types::instance_type> types;
};

// One region: pve1 (2 sockets, 32 CPUs, 64 GiB) holding a template, a Ready node's VM pinned to
// CPUs 0-3 on NUMA node 0, the VM of a NodeClaim still launching (found by its mark alone) and
// a VM of someone else; pve2 offline. A pod runs on the node, one finished, one is pending.
fixture_world make_world() {
  fixture_world f;
  auto types = config::load_instance_types(config::settings{});
  EXPECT_TRUE(types.ok());
  f.types = *types;
  for (const auto& t : f.types)
    if (t.vm_cpus == 4 && f.four_cpu_type.empty()) f.four_cpu_type = t.name;
  auto& w = f.world;
  w.cluster_name = "lab";
  auto& snap = w.snapshot;
  snap.synced = true;
  snap.node_claims = objects<kube::node_claim>(R"(
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: default-abcde
  creationTimestamp: ")" + ago(3 * 3600 + 60) + R"("
  labels: {karpenter.sh/nodepool: default, node.kubernetes.io/instance-type: )" +
                                               f.four_cpu_type + R"(}
spec: {nodeClassRef: {group: karpenter.proxmox.sinextra.dev, kind: ProxmoxNodeClass, name: default}}
status:
  providerID: proxmox://r1/101
  nodeName: default-abcde
  conditions:
    - {type: Launched, status: "True", reason: Launched, lastTransitionTime: "2026-01-01T00:00:00Z"}
    - {type: Registered, status: "True", reason: Registered, lastTransitionTime: "2026-01-01T00:00:00Z"}
    - {type: Initialized, status: "True", reason: Initialized, lastTransitionTime: "2026-01-01T00:00:00Z"}
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: default-fghij
  creationTimestamp: ")" + ago(65) + R"("
  labels: {karpenter.sh/nodepool: default}
spec: {nodeClassRef: {group: karpenter.proxmox.sinextra.dev, kind: ProxmoxNodeClass, name: default}}
)");
  snap.nodes = objects<kube::node>(R"(
apiVersion: v1
kind: Node
metadata:
  name: default-abcde
  creationTimestamp: ")" + ago(3 * 3600 + 12 * 60) +
                                   R"("
  labels: {node.kubernetes.io/instance-type: )" +
                                   f.four_cpu_type + R"(}
spec: {providerID: proxmox://r1/101}
)");
  w.pods = objects<kube::pod>(R"(
apiVersion: v1
kind: Pod
metadata: {name: web-1, namespace: default}
spec: {nodeName: default-abcde, containers: [{name: a, image: pause}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: job-1, namespace: default}
spec: {nodeName: default-abcde, containers: [{name: a, image: pause}]}
status: {phase: Succeeded}
---
apiVersion: v1
kind: Pod
metadata:
  name: huge
  namespace: default
  creationTimestamp: ")" + ago(42) +
                              R"("
spec:
  containers: [{name: a, image: pause, resources: {requests: {cpu: "200", memory: 1Gi}}}]
status:
  phase: Pending
  conditions: [{type: PodScheduled, status: "False", reason: Unschedulable, message: no node fits}]
)");
  plan::region_reading r;
  r.region = "r1";
  r.hosts["pve1"] = host("pve1", "online");
  r.hosts["pve2"] = host("pve2", "offline");
  r.hosts["pve2"].node_status.reset();  // an offline host's status is not read
  auto t = vm(9000, "pve1", "k8s-template", {{"template", "1"}});
  t.is_template = true;
  r.vms[9000] = t;
  r.vms[101] = vm(101, "pve1", "default-abcde",
                  {{"cores", "4"},
                   {"sockets", "1"},
                   {"memory", "4096"},
                   {"affinity", "0-3"},
                   {"numa0", "cpus=0-3,hostnodes=0,memory=4096,policy=bind"},
                   {"description",
                    "karpenter-proxmox: cluster=lab, nodeclaim=default-abcde, nodepool=default"}});
  r.vms[102] = vm(102, "pve1", "default-fghij",
                  {{"cores", "2"},
                   {"memory", "2048"},
                   {"description",
                    "karpenter-proxmox: cluster=lab, nodeclaim=default-fghij, nodepool=default"}});
  r.vms[200] = vm(200, "pve1", "someone-else", {{"cores", "2"}, {"memory", "2048"}});
  w.regions.push_back(r);
  plan::region_reading unread;
  unread.region = "r2";
  unread.error = "cluster resources: timeout: no answer before the deadline";
  w.regions.push_back(unread);
  return f;
}

view_snapshot snapshot_of(const fixture_world& f) {
  view_input in;
  in.world = &f.world;
  in.instance_types = f.types;
  in.now_unix_ms = now_ms;
  return build_view_snapshot(in);
}

TEST(ViewSnapshot, everyHostOfARegionReadAppearsWithItsNumaNodesFreeCpusAndMemory) {
  auto f = make_world();
  const auto s = snapshot_of(f);
  EXPECT_EQ(s.cluster, "lab");
  ASSERT_EQ(s.hosts.size(), 2u);
  const auto& pve1 = s.hosts[0];
  EXPECT_EQ(pve1.region, "r1");
  EXPECT_EQ(pve1.name, "pve1");
  EXPECT_TRUE(pve1.online);
  ASSERT_TRUE(pve1.topology_known);
  EXPECT_EQ(pve1.cpus, 32);
  ASSERT_EQ(pve1.numa.size(), 2u);
  EXPECT_EQ(pve1.numa[0].id, 0);
  EXPECT_EQ(pve1.numa[1].id, 1);
  // The pinned VM takes CPUs 0-3 and 4 GiB of node 0; node 1 is untouched.
  EXPECT_EQ(pve1.numa[0].cpus, 16);
  EXPECT_EQ(pve1.numa[0].free_cpus, 12);
  EXPECT_EQ(pve1.numa[1].free_cpus, 16);
  EXPECT_EQ(pve1.numa[1].free_memory_bytes - pve1.numa[0].free_memory_bytes, 4 * gib);
  EXPECT_EQ(pve1.numa[0].memory_bytes + pve1.numa[1].memory_bytes, pve1.memory_bytes);
  // The unpinned VMs (ours launching and someone else's running) count on the host only.
  EXPECT_EQ(pve1.free_cpus, 32 - 4 - 2 - 2);

  const auto& pve2 = s.hosts[1];
  EXPECT_EQ(pve2.name, "pve2");
  EXPECT_FALSE(pve2.online);
  EXPECT_FALSE(pve2.topology_known);
  EXPECT_TRUE(pve2.numa.empty());
  ASSERT_EQ(s.notes.size(), 1u);
  EXPECT_NE(s.notes[0].find("region r2 not read"), std::string::npos) << s.notes[0];
}

TEST(ViewSnapshot, aNodeVmShowsItsInstanceTypePricePinnedCpusAgeAndRunningPods) {
  auto f = make_world();
  const auto s = snapshot_of(f);
  const auto& vms = s.hosts[0].vms;
  ASSERT_EQ(vms.size(), 2u);
  const auto& v = vms[0];
  EXPECT_EQ(v.vmid, 101u);
  EXPECT_EQ(v.nodeclaim, "default-abcde");
  EXPECT_EQ(v.node, "default-abcde");
  EXPECT_EQ(v.instance_type, f.four_cpu_type);
  ASSERT_TRUE(v.price.has_value());
  EXPECT_GT(*v.price, 0);
  EXPECT_EQ(v.vcpus, 4);
  EXPECT_EQ(v.memory_bytes, 4 * gib);
  EXPECT_EQ(v.pinned_cpus, "0-3");
  EXPECT_EQ(v.numa_nodes, std::vector<int>{0});
  EXPECT_EQ(v.age_seconds, 3 * 3600 + 12 * 60);  // the Node's, as kubectl shows it
  EXPECT_EQ(v.phase, "Ready");
  EXPECT_EQ(v.pods, std::vector<std::string>{"default/web-1"});  // the finished job is gone
  // The other VMs of the host are counted, not listed: the template and someone else's.
  EXPECT_EQ(s.hosts[0].other_vms, 2);
}

TEST(ViewSnapshot, aVmWhoseNodeClaimHasNoProviderIdYetIsFoundByItsOwnershipMark) {
  auto f = make_world();
  const auto s = snapshot_of(f);
  const auto& v = s.hosts[0].vms.at(1);
  EXPECT_EQ(v.vmid, 102u);
  EXPECT_EQ(v.nodeclaim, "default-fghij");
  EXPECT_EQ(v.node, "");
  EXPECT_EQ(v.phase, "Launching");
  EXPECT_EQ(v.pinned_cpus, "");
  EXPECT_EQ(v.age_seconds, 65);  // the NodeClaim's, before a Node exists
  ASSERT_EQ(s.in_flight.size(), 1u);
  EXPECT_EQ(s.in_flight[0].name, "default-fghij");
  EXPECT_EQ(s.in_flight[0].phase, "Launching");
  EXPECT_EQ(s.in_flight[0].nodepool, "default");
  EXPECT_EQ(s.in_flight[0].host, "pve1");
}

TEST(ViewSnapshot, pendingPodsCarryTheirRequestsAgeAndTheSchedulersReason) {
  auto f = make_world();
  const auto s = snapshot_of(f);
  ASSERT_EQ(s.pending.size(), 1u);
  const auto& p = s.pending[0];
  EXPECT_EQ(p.pod, "default/huge");
  EXPECT_EQ(p.cpu_milli, 200'000);
  EXPECT_EQ(p.memory_bytes, gib);
  EXPECT_EQ(p.age_seconds, 42);
  EXPECT_EQ(p.reason, "Unschedulable: no node fits");
}

}  // namespace
}  // namespace kp::view
