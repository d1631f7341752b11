// kube-sim's workload controllers seen from outside, through the real binary and kubectl 1.32:
// `kubectl rollout status` follows Deployments, DaemonSets and StatefulSets to the end (also
// through a rollout), `kubectl wait` sees a Job complete, PodTemplates are stored and served, and
// `--disable-controllers` switches each workload controller off.
#include <gtest/gtest.h>

#include <algorithm>

#include "test/sim/kube/api_client.hpp"
#include "test/sim/kube/kube_sim_process.hpp"

namespace kp::sim::kube::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* workloads = R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 1
      containers: [{name: app, image: "nginx:1", resources: {requests: {cpu: 100m}}}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: "agent:1", resources: {requests: {cpu: 50m}}}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: "db:1", volumeMounts: [{name: data, mountPath: /data}]}]
  volumeClaimTemplates:
    - metadata: {name: data}
      spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: batch}
spec:
  completions: 3
  parallelism: 2
  template:
    metadata:
      annotations: {sim.karpenter.proxmox.sinextra.dev/run-duration: 300ms}
    spec:
      restartPolicy: Never
      containers: [{name: work, image: "busybox:1"}]
)";

class WorkloadsThroughKubectl : public ::testing::Test {
 protected:
  void start(std::vector<std::string> args) {
    if (!find_kubectl())
      GTEST_SKIP() << "kubectl is not installed (needed to prove kube-sim with a real client)";
    args.insert(args.end(), {"--node-monitor-grace", "3600", "--pod-termination-ms", "100"});
    sim_ = std::make_unique<kube_sim_process>(args);
    ASSERT_TRUE(sim_->ok()) << sim_->error();
    api_ = std::make_unique<api_client>(sim_->url(), sim_->ca_pem(), sim_->token());
    for (const char* n : {"a", "b"}) {
      auto r = api_->call(
          "POST", "/api/v1/nodes",
          std::string(R"({"metadata":{"name":")") + n +
              R"(","labels":{"kubernetes.io/hostname":")" + n +
              R"("}},"status":{"allocatable":{"cpu":"8","memory":"16Gi","pods":"110"},"conditions":[{"type":"Ready","status":"True"}]}})");
      ASSERT_EQ(r.status, 201) << r.body;
    }
  }
  command_result kubectl(const std::vector<std::string>& args, const std::string& input = "") {
    return sim_->kubectl(args, input, 40s);
  }
  void must(const std::vector<std::string>& args, const std::string& input = "",
            const std::string& says = "") {
    auto r = kubectl(args, input);
    std::string cmd;
    for (const auto& a : args) cmd += a + " ";
    ASSERT_EQ(r.exit_code, 0) << "kubectl " << cmd << "\nstdout: " << r.out
                              << "\nstderr: " << r.err;
    if (!says.empty()) {
      EXPECT_NE(r.out.find(says), std::string::npos) << cmd << ": " << r.out;
    }
  }

  // kubectl's table output with each run of spaces made one, so columns compare as words.
  std::string table(const std::vector<std::string>& args) {
    auto r = kubectl(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string out;
    for (char c : r.out)
      if (c != ' ' || out.empty() || out.back() != ' ') out += c;
    return out;
  }

  std::unique_ptr<kube_sim_process> sim_;
  std::unique_ptr<api_client> api_;
};

TEST_F(WorkloadsThroughKubectl, RolloutStatusFollowsEachWorkloadToTheEndAndThroughARollout) {
  start({});
  if (IsSkipped()) return;
  must({"apply", "-f", "-"}, workloads);
  must({"rollout", "status", "deployment/web", "--timeout=30s"}, "",
       "deployment \"web\" successfully rolled out");
  must({"rollout", "status", "daemonset/agent", "--timeout=30s"}, "",
       "daemon set \"agent\" successfully rolled out");
  must({"rollout", "status", "statefulset/db", "--timeout=30s"}, "",
       "partitioned roll out complete: 2 new pods have been updated");
  must({"wait", "--for=condition=complete", "job/batch", "--timeout=30s"}, "",
       "job.batch/batch condition met");
  must({"get", "pvc", "data-db-0", "data-db-1"});
  // A new image rolls the Deployment and the DaemonSet.
  must({"set", "image", "deployment/web", "app=nginx:2"});
  must({"set", "image", "daemonset/agent", "agent=agent:2"});
  must({"rollout", "status", "deployment/web", "--timeout=30s"}, "", "successfully rolled out");
  must({"rollout", "status", "daemonset/agent", "--timeout=30s"}, "", "successfully rolled out");
  auto images = kubectl({"get", "pods", "-l", "app=web", "-o",
                         "jsonpath={range .items[*]}{.spec.containers[0].image} {end}"});
  EXPECT_EQ(images.out, "nginx:2 nginx:2 nginx:2 nginx:2 ") << images.err;
  auto sets = kubectl({"get", "rs", "-l", "app=web", "-o", "name"});
  EXPECT_EQ(std::count(sets.out.begin(), sets.out.end(), '\n'), 2) << sets.out;

  // `kubectl get` prints the columns kube-apiserver's Tables give each kind.
  auto deploy = table({"get", "deployment", "web"});
  EXPECT_NE(deploy.find("NAME READY UP-TO-DATE AVAILABLE AGE\nweb 4/4 4 4 "), std::string::npos)
      << deploy;
  auto ds = table({"get", "daemonset", "agent"});
  EXPECT_NE(ds.find("NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE\n"
                    "agent 2 2 2 2 2 <none> "),
            std::string::npos)
      << ds;
  auto sts = table({"get", "statefulset", "db"});
  EXPECT_NE(sts.find("NAME READY AGE\ndb 2/2 "), std::string::npos) << sts;
  auto job = table({"get", "job", "batch"});
  EXPECT_NE(job.find("NAME STATUS COMPLETIONS DURATION AGE\nbatch Complete 3/3 "),
            std::string::npos)
      << job;
  auto rs = table({"get", "rs", "-l", "app=web", "-o", "wide"});
  EXPECT_NE(rs.find("NAME DESIRED CURRENT READY AGE CONTAINERS IMAGES SELECTOR\n"),
            std::string::npos)
      << rs;
  EXPECT_NE(rs.find(" 4 4 4 "), std::string::npos) << "the new ReplicaSet: " << rs;
  EXPECT_NE(rs.find(" 0 0 0 "), std::string::npos) << "the old one, scaled down: " << rs;
  EXPECT_NE(rs.find(" app nginx:2 app=web,pod-template-hash="), std::string::npos) << rs;
}

TEST_F(WorkloadsThroughKubectl, PodTemplatesAreStoredAndServed) {
  start({});
  if (IsSkipped()) return;
  auto r =
      api_->call("POST", "/api/v1/namespaces/default/podtemplates",
                 R"({"metadata":{"name":"buffer"},"template":{"metadata":{"labels":{"app":"x"}},
                         "spec":{"containers":[{"name":"c","image":"pause:1","resources":{"requests":{"cpu":"1"}}}]}}})");
  ASSERT_EQ(r.status, 201) << r.body;
  must({"get", "podtemplate", "buffer", "-o", "jsonpath={.template.spec.containers[0].image}"}, "",
       "pause:1");
  must({"api-resources", "--api-group=batch"}, "", "jobs");
}

// What a CapacityBuffer reads: PodTemplates (namespaced CRUD, list, watch) and the scale of the
// workloads a scalableRef names, through kubectl.
TEST_F(WorkloadsThroughKubectl, PodTemplatesAreWatchedAndEveryScalableWorkloadHasAScale) {
  start({});
  if (IsSkipped()) return;
  must({"create", "namespace", "team"});
  must({"apply", "-f", "-"}, R"(
apiVersion: v1
kind: PodTemplate
metadata: {name: chunk, namespace: team}
template:
  spec:
    containers: [{name: c, image: "pause:1", resources: {requests: {cpu: "1", memory: 1Gi}}}]
)");
  must({"get", "podtemplates", "-n", "team", "-o", "name"}, "", "podtemplate/chunk");
  auto none = kubectl({"get", "podtemplates", "-n", "default", "-o", "name"});
  EXPECT_EQ(none.out, "") << none.err;
  must({"patch", "podtemplate", "chunk", "-n", "team", "--type=merge", "-p",
        R"({"template":{"metadata":{"labels":{"app":"chunk"}}}})"});
  must({"get", "podtemplate", "chunk", "-n", "team", "-o",
        "jsonpath={.template.metadata.labels.app} {.template.spec.containers[0].resources}"},
       "", "chunk {\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}");
  // A watch from the list's resourceVersion sees the change and the deletion.
  auto list = api_->call("GET", "/api/v1/namespaces/team/podtemplates");
  ASSERT_EQ(list.status, 200) << list.body;
  const auto at = list.body.find("\"resourceVersion\":\"");
  ASSERT_NE(at, std::string::npos) << list.body;
  const auto rv = list.body.substr(at + 19, list.body.find('"', at + 19) - at - 19);
  must({"label", "podtemplate", "chunk", "-n", "team", "size=one"});
  must({"delete", "podtemplate", "chunk", "-n", "team"}, "", "deleted");
  auto watched = api_->call(
      "GET",
      "/api/v1/namespaces/team/podtemplates?watch=true&timeoutSeconds=1&resourceVersion=" + rv);
  EXPECT_NE(watched.body.find("\"type\":\"MODIFIED\""), std::string::npos) << watched.body;
  EXPECT_NE(watched.body.find("\"type\":\"DELETED\""), std::string::npos) << watched.body;
  auto gone = kubectl({"get", "podtemplate", "chunk", "-n", "team"});
  EXPECT_NE(gone.exit_code, 0);
  EXPECT_NE(gone.err.find("NotFound"), std::string::npos) << gone.err;

  must({"apply", "-f", "-"}, workloads);
  must({"rollout", "status", "statefulset/db", "--timeout=30s"});
  must({"create", "-f", "-"}, R"(
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: plain}
spec:
  replicas: 1
  selector: {matchLabels: {app: plain}}
  template:
    metadata: {labels: {app: plain}}
    spec: {containers: [{name: c, image: "pause:1"}]}
)");
  must({"scale", "statefulset", "db", "--replicas=3"}, "", "scaled");
  must({"scale", "replicaset", "plain", "--replicas=2"}, "", "scaled");
  must({"get", "--raw", "/apis/apps/v1/namespaces/default/statefulsets/db/scale"}, "",
       "\"replicas\":3");
  must({"get", "--raw", "/apis/apps/v1/namespaces/default/replicasets/plain/scale"}, "",
       "\"selector\":\"app=plain\"");
  must({"get", "--raw", "/apis/apps/v1/namespaces/default/deployments/web/scale"}, "",
       "\"kind\":\"Scale\"");
  must({"rollout", "status", "statefulset/db", "--timeout=30s"}, "", "3 new pods");
}

TEST_F(WorkloadsThroughKubectl, SwitchedOffWorkloadControllersLeaveTheirObjectsAlone) {
  start({"--disable-controllers", "deployment,daemonset,statefulset,job"});
  if (IsSkipped()) return;
  must({"apply", "-f", "-"}, workloads);
  // A ReplicaSet still works: once its pod runs, passes have seen the other workloads too.
  must({"apply", "-f", "-"}, R"(
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: probe}
spec:
  replicas: 1
  selector: {matchLabels: {app: probe}}
  template:
    metadata: {labels: {app: probe}}
    spec: {containers: [{name: c, image: "pause:1"}]}
)");
  auto deadline = std::chrono::steady_clock::now() + 30s;
  std::string probe;
  while (std::chrono::steady_clock::now() < deadline && probe.find("Running") == std::string::npos)
    probe = api_->call("GET", "/api/v1/namespaces/default/pods?labelSelector=app%3Dprobe").body;
  ASSERT_NE(probe.find("Running"), std::string::npos) << probe;
  auto pods = kubectl({"get", "pods", "-o", "name"});
  EXPECT_EQ(std::count(pods.out.begin(), pods.out.end(), '\n'), 1) << pods.out;
  auto sets = kubectl({"get", "rs", "-l", "app=web", "-o", "name"});
  EXPECT_EQ(sets.out, "") << "no Deployment controller, no ReplicaSet";
}

}  // namespace
}  // namespace kp::sim::kube::testing
