// The chart's monitoring objects, rendered by a real helm: off by default; with the values on, a
// metrics Service on the container's metrics port, a ServiceMonitor that selects it, and the
// dashboard ConfigMap labelled for Grafana's sidecar holding the dashboard file unchanged. helm
// comes from test/chart's fixture (build/helm); without it the test says so and skips.
#include <unistd.h>

#include <gtest/gtest.h>

#include <yaml-cpp/yaml.h>
#include <boost/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test/e2e/dashboard/dashboard_queries.hpp"
#include "test/sim/kube/kube_sim_process.hpp"

namespace kp::e2e {
namespace {

using kp::sim::kube::testing::command_result;
using kp::sim::kube::testing::run_command;
using namespace std::chrono_literals;

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : fallback;
}

class ChartMonitoring : public ::testing::Test {
 protected:
  void SetUp() override {
    helm_ = env_or("KP_BIN_DIR", "build/bin") + "/../helm/helm/helm";
    if (access(helm_.c_str(), X_OK) != 0)
      GTEST_SKIP() << "no helm at " << helm_ << " (test/chart's chart_helm_install puts it there)";
    home_ = "/tmp/kp-chart-monitoring-" + std::to_string(getpid());
  }
  void TearDown() override {
    std::error_code ec;
    if (!home_.empty()) std::filesystem::remove_all(home_, ec);
  }

  command_result render(const std::vector<std::string>& sets) {
    std::vector<std::string> argv{
        helm_,         "template", "kp", env_or("KP_SOURCE_DIR", ".") + "/chart/karpenter-proxmox",
        "--namespace", "karpenter"};
    for (const auto& s : sets) {
      argv.push_back("--set");
      argv.push_back(s);
    }
    return run_command(argv, {"HOME=" + home_}, "", 60s);
  }

  // The rendered objects by "Kind/name".
  static std::map<std::string, YAML::Node> objects(const std::string& manifest) {
    std::map<std::string, YAML::Node> out;
    for (const auto& doc : YAML::LoadAll(manifest)) {
      if (!doc.IsMap() || !doc["kind"]) continue;
      out[doc["kind"].as<std::string>() + "/" + doc["metadata"]["name"].as<std::string>()] = doc;
    }
    return out;
  }

  std::string helm_, home_;
};

TEST_F(ChartMonitoring, rendersNoServiceMonitorOrDashboardByDefault) {
  auto r = render({});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto objs = objects(r.out);
  EXPECT_FALSE(objs.count("Service/kp-karpenter-proxmox-metrics"));
  EXPECT_FALSE(objs.count("ServiceMonitor/kp-karpenter-proxmox"));
  EXPECT_FALSE(objs.count("ConfigMap/kp-karpenter-proxmox-dashboard"));
}

TEST_F(ChartMonitoring, aServiceMonitorSelectsTheMetricsServiceOfTheControllerPods) {
  auto r = render({"metrics.enabled=true", "metrics.serviceMonitor.enabled=true",
                   "metrics.serviceMonitor.labels.release=prom"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto objs = objects(r.out);
  ASSERT_TRUE(objs.count("Service/kp-karpenter-proxmox-metrics")) << r.out;
  ASSERT_TRUE(objs.count("ServiceMonitor/kp-karpenter-proxmox")) << r.out;
  ASSERT_TRUE(objs.count("Deployment/kp-karpenter-proxmox"));
  auto service = objs["Service/kp-karpenter-proxmox-metrics"];
  auto monitor = objs["ServiceMonitor/kp-karpenter-proxmox"];
  auto pod = objs["Deployment/kp-karpenter-proxmox"]["spec"]["template"];

  // The Service's selector picks the controller's pods, on the container port named metrics.
  for (const auto& kv : service["spec"]["selector"])
    EXPECT_EQ(pod["metadata"]["labels"][kv.first.as<std::string>()].as<std::string>(),
              kv.second.as<std::string>());
  EXPECT_EQ(service["spec"]["ports"][0]["targetPort"].as<std::string>(), "metrics");
  bool has_port = false;
  for (const auto& port : pod["spec"]["containers"][0]["ports"])
    has_port = has_port || (port["name"].as<std::string>() == "metrics" &&
                            port["containerPort"].as<int>() == 8080);
  EXPECT_TRUE(has_port);

  // The ServiceMonitor's selector picks that Service, on its port, in its namespace.
  for (const auto& kv : monitor["spec"]["selector"]["matchLabels"])
    EXPECT_EQ(service["metadata"]["labels"][kv.first.as<std::string>()].as<std::string>(),
              kv.second.as<std::string>());
  EXPECT_EQ(monitor["spec"]["endpoints"][0]["port"].as<std::string>(), "metrics");
  EXPECT_EQ(monitor["spec"]["endpoints"][0]["path"].as<std::string>(), "/metrics");
  EXPECT_EQ(monitor["spec"]["namespaceSelector"]["matchNames"][0].as<std::string>(), "karpenter");
  EXPECT_EQ(monitor["metadata"]["labels"]["release"].as<std::string>(), "prom");
}

TEST_F(ChartMonitoring, aServiceMonitorWithoutTheMetricsPortIsRefusedWithTheReason) {
  auto r = render({"metrics.serviceMonitor.enabled=true"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("need metrics.enabled"), std::string::npos) << r.err;
}

TEST_F(ChartMonitoring, theDashboardConfigMapCarriesTheDashboardForGrafanasSidecar) {
  auto r = render({"dashboards.enabled=true", "dashboards.annotations.grafana_folder=Karpenter"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto objs = objects(r.out);
  ASSERT_TRUE(objs.count("ConfigMap/kp-karpenter-proxmox-dashboard")) << r.out;
  auto cm = objs["ConfigMap/kp-karpenter-proxmox-dashboard"];
  EXPECT_EQ(cm["metadata"]["labels"]["grafana_dashboard"].as<std::string>(), "1");
  EXPECT_EQ(cm["metadata"]["annotations"]["grafana_folder"].as<std::string>(), "Karpenter");
  auto shipped = boost::json::parse(cm["data"]["karpenter-proxmox.json"].as<std::string>());
  EXPECT_EQ(shipped, load_chart_dashboard());
}

}  // namespace
}  // namespace kp::e2e
