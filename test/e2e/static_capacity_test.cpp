// A static NodePool (spec.replicas, behind the StaticCapacity feature gate) keeps its nodes with
// no pod asking for them, grows and shrinks when a person types `kubectl scale nodepool`, and
// reports how many nodes it has in status.nodes (the scale subresource's status replicas).
#include <boost/json.hpp>

#include "test/e2e/e2e_support.hpp"
#include "test/sim/kube/kube_sim_process.hpp"

namespace kp::e2e {
namespace {

namespace json = boost::json;
namespace kt = sim::kube::testing;

constexpr const char* static_pool = R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: static}
spec:
  replicas: 2
  template:
    spec:
      nodeClassRef: {group: karpenter.proxmox.sinextra.dev, kind: ProxmoxNodeClass, name: default}
      requirements:
        - {key: kubernetes.io/arch, operator: In, values: [amd64]}
)";

class static_capacity : public e2e_test {
 protected:
  // Live NodeClaims of the static pool whose nodes are Ready.
  static long ready_static_nodes(const cluster_view& v) {
    long n = 0;
    for (const auto& [name, c] : v.nodeclaims) {
      if (name.rfind("static-", 0) != 0 || c.terminating) continue;
      auto node = v.nodes.find(c.node_name);
      if (node != v.nodes.end() && node->second.ready) ++n;
    }
    return n;
  }
  static long static_claims(const cluster_view& v) {
    long n = 0;
    for (const auto& [name, c] : v.nodeclaims)
      if (name.rfind("static-", 0) == 0) ++n;
    return n;
  }
  // status.nodes of the NodePool, -1 when not reported.
  std::int64_t status_nodes() {
    auto pools = world->list("/apis/karpenter.sh/v1/nodepools");
    if (!pools) return -1;
    for (const auto& p : *pools) {
      const auto& o = p.as_object();
      if (o.at("metadata").as_object().at("name") != "static") continue;
      const auto* st = o.if_contains("status");
      const auto* nodes = st && st->is_object() ? st->as_object().if_contains("nodes") : nullptr;
      return nodes && nodes->is_int64() ? nodes->as_int64() : -1;
    }
    return -1;
  }
};

TEST_F(static_capacity, aStaticPoolKeepsTwoNodesWithoutPodsAndGrowsToThreeThroughKubectlScale) {
  auto kubectl = kt::find_kubectl();
  if (!kubectl) GTEST_SKIP() << "kubectl is not installed";
  KP_E2E_START();
  start_controller({{"feature-gates", "StaticCapacity=true"}});
  apply(static_pool);

  ASSERT_TRUE(wait_for([](const cluster_view& v) { return ready_static_nodes(v) == 2; }, 60s))
      << diagnose();
  // Exactly two: no pod needs them, and nothing adds a third or takes one away.
  EXPECT_FALSE(wait_for([](const cluster_view& v) { return static_claims(v) != 2; }, 5s))
      << diagnose();
  ASSERT_TRUE(lab::lab_world::eventually([&] { return status_nodes() == 2; }, 20s))
      << "status.nodes=" << status_nodes();

  const std::string home = world->work_dir() + "/kubectl-home";
  auto scaled = kt::run_command({*kubectl, "--kubeconfig", world->kubeconfig_path(), "--cache-dir",
                                 home + "/cache", "scale", "nodepool", "static", "--replicas=3"},
                                {"HOME=" + home}, "", 30s);
  ASSERT_EQ(scaled.exit_code, 0) << scaled.out << scaled.err;
  EXPECT_NE(scaled.out.find("scaled"), std::string::npos) << scaled.out;

  ASSERT_TRUE(wait_for([](const cluster_view& v) { return ready_static_nodes(v) == 3; }, 60s))
      << diagnose();
  EXPECT_EQ(static_claims(view()), 3) << diagnose();
  EXPECT_TRUE(lab::lab_world::eventually([&] { return status_nodes() == 3; }, 20s))
      << "status.nodes=" << status_nodes();
  auto replicas = kt::run_command(
      {*kubectl, "--kubeconfig", world->kubeconfig_path(), "--cache-dir", home + "/cache", "get",
       "nodepool", "static", "-o", "jsonpath={.spec.replicas}"},
      {"HOME=" + home}, "", 30s);
  EXPECT_EQ(replicas.out, "3") << replicas.err;

  // Scaling down deletes the surplus through the normal termination path (VMs go too).
  auto down = kt::run_command({*kubectl, "--kubeconfig", world->kubeconfig_path(), "--cache-dir",
                               home + "/cache", "scale", "nodepool", "static", "--replicas=1"},
                              {"HOME=" + home}, "", 30s);
  ASSERT_EQ(down.exit_code, 0) << down.out << down.err;
  ASSERT_TRUE(wait_for(
      [](const cluster_view& v) { return static_claims(v) == 1 && v.vms.size() == 1; }, 60s))
      << diagnose();
  EXPECT_EQ(ready_static_nodes(view()), 1) << diagnose();
  EXPECT_EQ(settled_leaks(), "");
}

TEST_F(static_capacity, aPoolCannotSwitchBetweenStaticAndDynamic) {
  KP_E2E_START();
  apply(static_pool);
  // Taking replicas away is refused by the CRD's transition rule.
  auto path = world->collection_path("karpenter.sh/v1", "NodePool", "");
  ASSERT_TRUE(path.ok()) << path.error().message;
  auto r = world->kube().call("PATCH", *path + "/static", R"({"spec":{"replicas":null}})",
                              "application/merge-patch+json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, 422) << r->body;
  EXPECT_NE(r->body.find("Cannot transition NodePool between static"), std::string::npos)
      << r->body;
  // Nor may a dynamic pool become static.
  auto d = world->kube().call("PATCH", *path + "/default", R"({"spec":{"replicas":1}})",
                              "application/merge-patch+json");
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->status, 422) << d->body;
}

}  // namespace
}  // namespace kp::e2e
