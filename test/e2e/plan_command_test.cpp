// `karpenter-proxmox plan`: against the simulators with the lab's NodePool, ProxmoxNodeClass and
// template, it prints the NodeClaim it would create (instance type, price, a host holding the
// template) and the pod that fits nowhere, while neither simulator sees a single write. A bad
// file is one line on stderr naming the file, the document and the field, with exit code 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>

#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

namespace json = boost::json;

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

constexpr const char* workloads = R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: pause, resources: {requests: {cpu: 500m, memory: 512Mi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: huge, namespace: default}
spec:
  containers: [{name: app, image: pause, resources: {requests: {cpu: "200", memory: 1Gi}}}]
)";

class plan_command : public e2e_test {
 protected:
  long kube_writes() { return kube_requests_by_method(false); }
  long pve_writes() { return pve_requests_by_method(false); }
  long pve_reads() { return pve_requests_by_method(true); }
  std::string command(const std::string& file, const std::string& output) {
    std::string c = controller_binary();
    for (const auto& [k, v] : world->controller_settings()) c += " '--" + k + "=" + v + "'";
    return c + " plan -f '" + file + "' --output " + output;
  }
};

TEST_F(plan_command, printsTheNodeClaimItWouldCreateWhileNeitherSimulatorSeesAWrite) {
  KP_E2E_START();
  const std::string file = world->work_dir() + "/pods.yaml";
  write_file(file, workloads);
  // The hosts that hold the template: the only ones a launch may use.
  std::set<std::string> template_hosts;
  auto vms = world->vms(false);
  ASSERT_TRUE(vms.ok()) << vms.error().message;
  for (const auto& vm : *vms)
    if (vm.templated && vm.name == "k8s-template") template_hosts.insert(vm.node);
  ASSERT_FALSE(template_hosts.empty());

  const long kube_before = kube_writes(), pve_before = pve_writes(), reads_before = pve_reads();
  ASSERT_GE(kube_before, 0);
  ASSERT_GE(pve_before, 0);
  auto r = run_command(command(file, "json"), world->work_dir() + "/plan.err");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  json::value parsed;
  ASSERT_NO_THROW(parsed = json::parse(r.out)) << r.out;
  const auto& report = parsed.as_object();
  EXPECT_EQ(report.at("version").to_number<int>(), 1);
  EXPECT_EQ(report.at("cluster").as_string(), "lab");

  const auto& claims = report.at("nodeClaims").as_array();
  ASSERT_EQ(claims.size(), 1u) << r.out;
  const auto& claim = claims[0].as_object();
  EXPECT_EQ(claim.at("error").as_string(), "") << r.out;
  EXPECT_FALSE(claim.at("nodePool").as_string().empty());
  EXPECT_FALSE(claim.at("instanceType").as_string().empty()) << r.out;
  EXPECT_GT(claim.at("price").to_number<double>(), 0) << r.out;
  EXPECT_EQ(template_hosts.count(std::string(claim.at("host").as_string())), 1u) << r.out;
  std::set<std::string> pods;
  for (const auto& p : claim.at("pods").as_array()) pods.insert(std::string(p.as_string()));
  EXPECT_EQ(pods, (std::set<std::string>{"default/web-what-if-0", "default/web-what-if-1",
                                         "default/web-what-if-2"}));
  const auto& pending = report.at("pending").as_array();
  ASSERT_EQ(pending.size(), 1u) << r.out;
  EXPECT_EQ(pending[0].at("pod").as_string(), "default/huge");
  EXPECT_TRUE(pending[0].at("added").as_bool());
  EXPECT_FALSE(pending[0].at("reason").as_string().empty());

  // The same as text, for a person.
  auto text = run_command(command(file, "text"), world->work_dir() + "/plan-text.err");
  ASSERT_EQ(text.code, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("NodeClaims it would create: 1"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("on host " + std::string(claim.at("host").as_string())),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("default/huge: "), std::string::npos) << text.out;

  // Both runs read Proxmox, and neither wrote anything anywhere.
  EXPECT_GT(pve_reads(), reads_before);
  EXPECT_EQ(kube_writes(), kube_before);
  EXPECT_EQ(pve_writes(), pve_before);
}

TEST(PlanCommand, aBadFileIsOneLineNamingTheFileDocumentAndFieldAndExitsTwo) {
  if (access(controller_binary().c_str(), X_OK) != 0)
    GTEST_SKIP() << controller_binary() << " is not built";
  char dir[] = "/tmp/kp-plan-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string file = std::string(dir) + "/bad.yaml";
  write_file(file, R"(
apiVersion: v1
kind: Pod
metadata: {name: fine}
spec:
  containers: [{name: app, image: pause}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: pause, resources: {requests: {cpu: lots}}}]
)");
  auto r = run_command(controller_binary() + " plan -f " + file, std::string(dir) + "/err");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;  // one line
  EXPECT_NE(r.err.find(file + ": document 2 (Deployment web)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cpu"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("lots"), std::string::npos) << r.err;

  auto missing = run_command(controller_binary() + " plan -f " + std::string(dir) + "/none.yaml",
                             std::string(dir) + "/err");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("none.yaml"), std::string::npos) << missing.err;
  auto usage = run_command(controller_binary() + " plan", std::string(dir) + "/err");
  EXPECT_EQ(usage.code, 2);
  EXPECT_NE(usage.err.find("-f FILE is required"), std::string::npos) << usage.err;
  std::remove(file.c_str());
  std::remove((std::string(dir) + "/err").c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace kp::e2e
