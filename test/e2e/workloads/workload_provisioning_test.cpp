// Pods of the workloads users write get their nodes from the controller: a Deployment (and its
// rollout to a new template), a StatefulSet with a PersistentVolumeClaim per pod (kube-sim binds
// no volumes; the claims stay Pending, and the controller does not look at them), and a Job whose
// pods run to completion.
#include <boost/json.hpp>
#include <set>

#include "sim/lab/world_observation.hpp"
#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

namespace json = boost::json;

class workload_provisioning : public e2e_test {
 protected:
  json::object get(const std::string& path) {
    auto r = world->kube().call("GET", path);
    if (!r || !r->ok()) return {};
    auto v = r->json();
    return v.is_object() ? v.as_object() : json::object{};
  }
  static bool condition_true(const json::object& o, const char* type) {
    const auto* st = o.if_contains("status");
    const auto* cs = st && st->is_object() ? st->as_object().if_contains("conditions") : nullptr;
    if (cs == nullptr || !cs->is_array()) return false;
    for (const auto& c : cs->as_array())
      if (c.is_object() && c.as_object().at("type") == json::value(type))
        return c.as_object().at("status") == json::value("True");
    return false;
  }
  // Pods whose name starts with `prefix`, each on a node the controller made (a NodeClaim's).
  bool all_on_controller_nodes(const cluster_view& v, const std::string& prefix, std::size_t want,
                               const std::string& phase) {
    std::size_t n = 0;
    for (const auto& p : v.pods) {
      if (p.name.rfind(prefix, 0) != 0 || p.terminating) continue;
      if (p.phase != phase || p.node.empty() || v.nodeclaims.count(p.node) == 0) return false;
      ++n;
    }
    return n == want;
  }
};

TEST_F(workload_provisioning, deploymentPodsGetNodesAndARolloutCompletesOnThem) {
  KP_E2E_START();
  start_controller();
  apply(R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 6
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 1
      containers: [{name: app, image: "pause:1", resources: {requests: {cpu: 500m, memory: 512Mi}}}]
)");
  auto rolled_out = [&] {
    return lab::rolled_out("Deployment", get("/apis/apps/v1/namespaces/default/deployments/web"));
  };
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        return rolled_out() && all_on_controller_nodes(v, "web-", 6, "Running");
      },
      60s))
      << diagnose();
  apply(R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 6
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 1
      containers: [{name: app, image: "pause:2", resources: {requests: {cpu: "1", memory: 1Gi}}}]
)");
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        return rolled_out() && all_on_controller_nodes(v, "web-", 6, "Running");
      },
      90s))
      << diagnose();
  auto d = get("/apis/apps/v1/namespaces/default/deployments/web");
  EXPECT_EQ(d.at("status").at("updatedReplicas").as_int64(), 6);
  auto sets = world->list("/apis/apps/v1/namespaces/default/replicasets");
  ASSERT_TRUE(sets.ok());
  EXPECT_EQ(sets->size(), 2u) << "the new ReplicaSet and the scaled-down old one";
  EXPECT_EQ(settled_leaks(), "");
}

TEST_F(workload_provisioning, statefulSetPodsWithClaimsGetNodesInOrdinalOrder) {
  KP_E2E_START();
  start_controller();
  apply(R"(
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  replicas: 3
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: app
          image: "db:1"
          resources: {requests: {cpu: "1", memory: 2Gi}}
          volumeMounts: [{name: data, mountPath: /data}]
  volumeClaimTemplates:
    - metadata: {name: data}
      spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 10Gi}}}
)");
  // The StatefulSet's status follows its pods' readiness a moment later: wait for both.
  auto rolled_out = [&] {
    return lab::rolled_out("StatefulSet", get("/apis/apps/v1/namespaces/default/statefulsets/db"));
  };
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        return all_on_controller_nodes(v, "db-", 3, "Running") && rolled_out();
      },
      90s))
      << diagnose();
  auto claims = world->list("/api/v1/namespaces/default/persistentvolumeclaims");
  ASSERT_TRUE(claims.ok());
  std::set<std::string> names;
  for (const auto& c : *claims) names.insert(std::string(c.at("metadata").at("name").as_string()));
  EXPECT_EQ(names, (std::set<std::string>{"data-db-0", "data-db-1", "data-db-2"}));
  // Each pod mounts its own claim.
  for (int i = 0; i < 3; ++i) {
    auto pod = get("/api/v1/namespaces/default/pods/db-" + std::to_string(i));
    auto s = json::serialize(pod);
    EXPECT_NE(s.find("\"claimName\":\"data-db-" + std::to_string(i) + "\""), std::string::npos)
        << s;
  }
  EXPECT_EQ(settled_leaks(), "");
}

TEST_F(workload_provisioning, jobPodsGetNodesAndTheJobCompletes) {
  KP_E2E_START();
  start_controller();
  apply(R"(
apiVersion: batch/v1
kind: Job
metadata: {name: crunch, namespace: default}
spec:
  completions: 4
  parallelism: 2
  template:
    metadata:
      annotations: {sim.karpenter.proxmox.sinextra.dev/run-duration: 3s}
    spec:
      restartPolicy: Never
      containers: [{name: app, image: "crunch:1", resources: {requests: {cpu: "1", memory: 1Gi}}}]
)");
  std::set<std::string> nodes_used, foreign;
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        for (const auto& p : v.pods)
          if (p.name.rfind("crunch-", 0) == 0 && !p.node.empty()) {
            nodes_used.insert(p.node);
            if (v.nodeclaims.count(p.node) == 0) foreign.insert(p.node);
          }
        return condition_true(get("/apis/batch/v1/namespaces/default/jobs/crunch"), "Complete");
      },
      120s))
      << diagnose();
  EXPECT_FALSE(nodes_used.empty());
  EXPECT_TRUE(foreign.empty()) << "pods ran on nodes no NodeClaim made";
  auto job = get("/apis/batch/v1/namespaces/default/jobs/crunch");
  EXPECT_EQ(job.at("status").at("succeeded").as_int64(), 4);
  EXPECT_FALSE(nodes_used.empty());
  std::size_t succeeded = 0;
  for (const auto& p : view().pods)
    if (p.name.rfind("crunch-", 0) == 0 && p.phase == "Succeeded") ++succeeded;
  EXPECT_EQ(succeeded, 4u);
}

}  // namespace
}  // namespace kp::e2e
