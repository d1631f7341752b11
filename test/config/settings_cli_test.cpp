// The binary as a process: --help, --version, and each bad setting giving its one line on stderr
// and exit code 2 before anything starts. Secrets never appear in the output.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "config/setting_table.hpp"
#include "test/support/child_process.hpp"

namespace kp::config {
namespace {

constexpr const char* secret_value = "TOPSECRET-9f8e7d6c";

class SettingsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kp-cli-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    kubeconfig_ = write("kubeconfig", R"(apiVersion: v1
kind: Config
current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: "https://127.0.0.1:9"}}]
users: [{name: u, user: {token: )" + std::string(secret_value) +
                                          "}}]\n");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& content) {
    auto path = (dir_ / name).string();
    std::ofstream(path) << content;
    return path;
  }

  test::finished_process run(std::vector<std::string> args,
                             std::map<std::string, std::string> env = {}) {
    args.insert(args.begin(), test::binary_path("karpenter-proxmox"));
    env.emplace("PATH", "/usr/bin:/bin");
    return test::run_to_end(args, env);
  }

  // Expects exit 2 and exactly one line on stderr containing `expected`, and no secret.
  void expect_refused(std::vector<std::string> args, std::map<std::string, std::string> env,
                      const std::string& expected) {
    auto r = run(args, env);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos)
        << "got: " << r.err << "wanted: " << expected;
    ASSERT_FALSE(r.err.empty());
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
    EXPECT_EQ(r.err.rfind("karpenter-proxmox: ", 0), 0u) << r.err;
    EXPECT_EQ(r.err.find(secret_value), std::string::npos);
    EXPECT_EQ(r.out.find(secret_value), std::string::npos);
  }

  std::string cluster_file(const std::string& clusters) {
    return write("clusters.yaml", "clusters:\n" + clusters);
  }

  std::filesystem::path dir_;
  std::string kubeconfig_;
};

TEST_F(SettingsCli, HelpListsEverySettingWithItsVariableAndDefault) {
  auto r = run({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const auto& spec : setting_table()) {
    EXPECT_NE(r.out.find("--" + spec.flag), std::string::npos) << spec.flag;
    EXPECT_NE(r.out.find("env " + spec.env + ", default"), std::string::npos) << spec.env;
  }
  EXPECT_EQ(run({"-h"}).exit_code, 0);
}

TEST_F(SettingsCli, VersionPrintsTheVersion) {
  auto r = run({"-version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("karpenter-proxmox ", 0), 0u) << r.out;
  EXPECT_GT(r.out.size(), std::string("karpenter-proxmox \n").size());
}

TEST_F(SettingsCli, EachBadSettingIsOneLineAndExitCode2) {
  expect_refused({"--no-such-flag"}, {}, "flag provided but not defined: --no-such-flag");
  expect_refused({"-batch-max-duration=10"}, {},
                 "flag -batch-max-duration: invalid duration \"10\"");
  expect_refused({}, {{"BATCH_IDLE_DURATION", "soon"}},
                 "environment variable BATCH_IDLE_DURATION: invalid duration \"soon\"");
  expect_refused({"--metrics-port", "eighty"}, {}, "flag --metrics-port: invalid value \"eighty\"");
  expect_refused({}, {{"KUBE_CLIENT_QPS", "1.5"}}, "environment variable KUBE_CLIENT_QPS");
  expect_refused({}, {{"FEATURE_GATES", "NodeRepair=true,Drift=true"}},
                 "unknown feature gate \"Drift\"");
  expect_refused({"--preference-policy=Sometimes"}, {}, "expected one of Respect, Ignore");
  expect_refused({"--node-policy=pinned"}, {}, "expected one of simple, static");
  expect_refused({"bogus"}, {}, "unknown command \"bogus\"");
  expect_refused({"lab", "--bogus"}, {}, "lab: unknown argument \"--bogus\"");
}

TEST_F(SettingsCli, AMissingOrUnreadableClustersFilePointsToTheLab) {
  expect_refused({"--kubeconfig", kubeconfig_}, {}, "no clusters file");
  expect_refused({"--kubeconfig", kubeconfig_}, {}, "karpenter-proxmox lab");
  expect_refused({"--kubeconfig", kubeconfig_, "--cloud-config", (dir_ / "absent.yaml").string()},
                 {},
                 "cannot read it (No such file or directory); for a try-out without Proxmox, run "
                 "`karpenter-proxmox lab`");
}

TEST_F(SettingsCli, EachInvalidClustersFileIsOneLineAndExitCode2) {
  std::string s = secret_value;
  struct bad_file {
    std::string clusters;
    std::string expected;
  };
  std::vector<bad_file> cases = {
      {"  - {region: r, token_id: a@b!c, token_secret: " + s + "}\n", "url is required"},
      {"  - {url: https://x, token_id: a@b!c, token_secret: " + s + "}\n", "region is required"},
      {"  - {url: https://x, region: r}\n", "no credentials"},
      {"  - {url: https://x, region: r, token_id: a, token_secret: " + s +
           "}\n  - {url: https://y, region: r, token_id: b, token_secret: " + s + "}\n",
       "clusters 1 and 2 both use region \"r\""},
      {"  - {url: https://x, region: r, username: root@pam, password: " + s +
           ", token_id: a, token_secret: " + s + "}\n",
       "mutually exclusive"},
      {"  - {url: https://x, region: r, token_id: a, token_secret: " + s + "\n", "malformed YAML"},
  };
  for (const auto& c : cases) {
    auto path = cluster_file(c.clusters);
    expect_refused({"--cloud-config=" + path, "--kubeconfig=" + kubeconfig_}, {}, c.expected);
  }
  auto provider = write("provider.yaml",
                        "features: {provider: capmox}\nclusters:\n  - {url: https://x, region: r, "
                        "token_id: a, token_secret: " +
                            s + "}\n");
  expect_refused({"--cloud-config=" + provider, "--kubeconfig=" + kubeconfig_}, {},
                 "features.provider \"capmox\" is not supported");
}

TEST_F(SettingsCli, TheSamePortForMetricsAndHealthIsRefused) {
  auto path = cluster_file("  - {url: https://x, region: r, token_id: a@b!c, token_secret: " +
                           std::string(secret_value) + "}\n");
  expect_refused({"--cloud-config", path, "--kubeconfig", kubeconfig_, "--metrics-port=9999",
                  "--health-probe-port=9999"},
                 {}, "METRICS_PORT and HEALTH_PROBE_PORT are both 9999: they must differ");
}

TEST_F(SettingsCli, OutsideAClusterWithoutAKubeconfigIsRefused) {
  auto path = cluster_file("  - {url: https://x, region: r, token_id: a@b!c, token_secret: " +
                           std::string(secret_value) + "}\n");
  expect_refused(
      {"--cloud-config", path}, {},
      "not running in a cluster (KUBERNETES_SERVICE_HOST is unset) and no kubeconfig given");
  expect_refused({"--cloud-config", path, "--kubeconfig", (dir_ / "nope").string()}, {},
                 "kubeconfig " + (dir_ / "nope").string() + ": cannot read it");
}

}  // namespace
}  // namespace kp::config
