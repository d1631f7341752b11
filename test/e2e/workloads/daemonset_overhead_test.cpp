// DaemonSet overhead end to end: a node agent (600m, tolerating every taint, as CNI and proxy
// agents do) runs on every node the controller makes, and its requests are part of the size the
// controller chooses. A 1500m pod alone fits a 2-vCPU VM (1940m allocatable); with the agent it
// needs 2100m, so the VM must have 4 vCPUs, and the agent must not be left Pending for lack of
// room.
#include <boost/json.hpp>

#include "sim/lab/node_sizes.hpp"
#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

class daemonset_overhead : public e2e_test {
 protected:
  // Nodes that have exactly one Running agent pod, and whether any pod is Pending.
  static std::size_t nodes_with_agent(const cluster_view& v, bool& pending) {
    std::map<std::string, int> agents;
    pending = false;
    for (const auto& p : v.pods) {
      if (p.terminating) continue;
      pending |= p.phase == "Pending";
      if (p.name.rfind("agent-", 0) == 0 && p.phase == "Running") ++agents[p.node];
    }
    std::size_t n = 0;
    for (const auto& [node, _] : v.nodes) n += agents.count(node) && agents.at(node) == 1 ? 1 : 0;
    return n;
  }
};

TEST_F(daemonset_overhead, agentPodsLandOnEveryNewNodeAndTheirRequestsAreCountedInItsSize) {
  KP_E2E_START();
  start_controller();
  apply(R"(
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      tolerations: [{operator: Exists}]
      containers: [{name: agent, image: "agent:1", resources: {requests: {cpu: 600m, memory: 256Mi}}}]
)");
  scale("solo", 1, "1500m", "1Gi");
  bool pending = true;
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        return v.running() == 2 && v.nodes.size() == 1 && nodes_with_agent(v, pending) == 1 &&
               !pending;
      },
      60s))
      << diagnose();
  auto sizes = lab::read_node_sizes(*world);
  ASSERT_TRUE(sizes.ok()) << sizes.error().message;
  ASSERT_EQ(sizes->size(), 1u);
  const auto& node = sizes->front();
  EXPECT_GE(node.cpu, 2.1) << node.line() << ": room for the pod and the agent";
  EXPECT_DOUBLE_EQ(node.daemon_cpu, 0.6) << node.line();
  EXPECT_DOUBLE_EQ(node.app_cpu, 1.5) << node.line();

  // More pods: every node the controller adds gets its agent, and no pod waits for room.
  scale("wave", 6, "1500m", "1Gi");
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        return v.running() == static_cast<long>(7 + v.nodes.size()) && v.nodes.size() >= 2 &&
               nodes_with_agent(v, pending) == v.nodes.size() && !pending;
      },
      90s))
      << diagnose();
  sizes = lab::read_node_sizes(*world);
  ASSERT_TRUE(sizes.ok());
  for (const auto& n : *sizes) {
    EXPECT_EQ(n.daemon_pods, 1) << n.line();
    EXPECT_LE(n.app_cpu + n.daemon_cpu, n.cpu + 1e-9) << n.line();
  }
  EXPECT_EQ(settled_leaks(), "");
}

}  // namespace
}  // namespace kp::e2e
