// Client configuration: kubeconfig variants, relative paths, merging, in-cluster settings and
// service-account token rotation. Files live in a fresh temporary directory per test.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "core/text/base64.hpp"
#include "protocol/kube/client_config.hpp"

namespace kp::kube {
namespace {

namespace fs = std::filesystem;

class ConfigFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "kp-kubeconfig-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& relative, const std::string& text) {
    const auto path = dir_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path.string();
  }

  fs::path dir_;
};

constexpr const char* two_contexts = R"(apiVersion: v1
kind: Config
current-context: admin
clusters:
- name: sim
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority: certs/ca.pem
- name: other
  cluster:
    server: https://10.0.0.1:6443
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
    token: secret-token
- name: node
  user:
    client-certificate: certs/node.crt
    client-key: /ABSOLUTE_KEY
- name: rotating
  user:
    tokenFile: token
contexts:
- name: admin
  context: {cluster: sim, user: admin, namespace: kube-system}
- name: node
  context: {cluster: sim, user: node}
- name: insecure
  context: {cluster: other, user: rotating}
)";

TEST_F(ConfigFiles, theCurrentContextPicksClusterUserAndNamespace) {
  write("certs/ca.pem", "CA PEM");
  auto path = write("config", two_contexts);
  auto cfg = load_kubeconfig(path);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->server, "https://127.0.0.1:6443");  // trailing slash dropped
  EXPECT_EQ(cfg->ca_pem, "CA PEM");  // relative path resolved against the file's directory
  EXPECT_EQ(cfg->token, "secret-token");
  EXPECT_EQ(cfg->namespace_, "kube-system");
  EXPECT_EQ(cfg->context, "admin");
  EXPECT_FALSE(cfg->insecure_skip_tls_verify);
}

TEST_F(ConfigFiles, clientCertificateAndKeyFilesAreRead) {
  write("certs/ca.pem", "CA PEM");
  write("certs/node.crt", "CERT PEM");
  const auto key = write("elsewhere/node.key", "KEY PEM");
  std::string text = two_contexts;
  text.replace(text.find("/ABSOLUTE_KEY"), 13, key);
  auto path = write("config", text);
  auto cfg = load_kubeconfig(path, "node");
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->client_certificate_pem, "CERT PEM");
  EXPECT_EQ(cfg->client_key_pem, "KEY PEM");
  EXPECT_EQ(cfg->namespace_, "default");
}

TEST_F(ConfigFiles, inlineDataIsBase64Decoded) {
  const std::string text =
      "current-context: c\n"
      "clusters: [{name: k, cluster: {server: 'https://h:1', certificate-authority-data: " +
      text::base64_encode("CA DATA") +
      "}}]\n"
      "users: [{name: u, user: {client-certificate-data: " +
      text::base64_encode("CERT DATA") + ", client-key-data: " + text::base64_encode("KEY DATA") +
      "}}]\n"
      "contexts: [{name: c, context: {cluster: k, user: u}}]\n";
  auto cfg = parse_kubeconfig(text, dir_.string());
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->ca_pem, "CA DATA");
  EXPECT_EQ(cfg->client_certificate_pem, "CERT DATA");
  EXPECT_EQ(cfg->client_key_pem, "KEY DATA");
}

TEST_F(ConfigFiles, insecureSkipTlsVerifyAndTokenFileAreHonoured) {
  write("certs/ca.pem", "CA PEM");
  write("token", "tok-1\n");
  auto path = write("config", two_contexts);
  auto cfg = load_kubeconfig(path, "insecure");
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_TRUE(cfg->insecure_skip_tls_verify);
  EXPECT_EQ(cfg->token_file, (dir_ / "token").string());
  token_source tokens(*cfg);
  EXPECT_EQ(tokens.current(), "tok-1");
}

TEST_F(ConfigFiles, problemsAreErrorsNamingTheEntry) {
  write("certs/ca.pem", "CA PEM");
  auto path = write("config", two_contexts);
  auto missing_context = load_kubeconfig(path, "nope");
  ASSERT_FALSE(missing_context.ok());
  EXPECT_EQ(missing_context.error().message, "kubeconfig: context \"nope\" not found");
  auto missing_file = load_kubeconfig(path, "node");  // certs/node.crt does not exist
  ASSERT_FALSE(missing_file.ok());
  EXPECT_NE(missing_file.error().message.find("client-certificate"), std::string::npos);
  EXPECT_FALSE(parse_kubeconfig("clusters: [", dir_.string()).ok());
  EXPECT_FALSE(parse_kubeconfig("- a\n- b\n", dir_.string()).ok());
  auto bad64 = parse_kubeconfig(
      "current-context: c\nclusters: [{name: k, cluster: {server: 'https://h', "
      "certificate-authority-data: '!!'}}]\n"
      "contexts: [{name: c, context: {cluster: k}}]\n",
      dir_.string());
  ASSERT_FALSE(bad64.ok());
  EXPECT_NE(bad64.error().message.find("certificate-authority-data: invalid base64"),
            std::string::npos);
  auto no_server = parse_kubeconfig(
      "current-context: c\nclusters: [{name: k, cluster: {}}]\n"
      "contexts: [{name: c, context: {cluster: k}}]\n",
      dir_.string());
  ASSERT_FALSE(no_server.ok());
  EXPECT_EQ(no_server.error().message, "kubeconfig: cluster \"k\" has no server");
}

TEST_F(ConfigFiles, mergedFilesLetTheFirstDefinitionWin) {
  const auto first = write("a/config",
                           "current-context: one\n"
                           "clusters: [{name: k, cluster: {server: 'https://first:1'}}]\n"
                           "contexts: [{name: one, context: {cluster: k, user: u}}]\n"
                           "users: [{name: u, user: {token: first}}]\n");
  const auto second =
      write("b/config",
            "current-context: two\n"
            "clusters: [{name: k, cluster: {server: 'https://second:1'}}, "
            "{name: k2, cluster: {server: 'https://k2:1', certificate-authority: ca.pem}}]\n"
            "contexts: [{name: two, context: {cluster: k2, user: u}}]\n"
            "users: [{name: u, user: {token: second}}]\n");
  write("b/ca.pem", "B CA");
  auto cfg = load_kubeconfig(first + ":" + second);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->server, "https://first:1");
  EXPECT_EQ(cfg->token, "first");
  auto two = load_kubeconfig(first + ":" + second, "two");
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(two->server, "https://k2:1");
  EXPECT_EQ(two->ca_pem, "B CA");  // resolved against the second file's directory
}

TEST_F(ConfigFiles, inClusterConfigurationReadsTheServiceAccount) {
  write("var/run/secrets/kubernetes.io/serviceaccount/token", "sa-token-1\n");
  write("var/run/secrets/kubernetes.io/serviceaccount/ca.crt", "CLUSTER CA");
  write("var/run/secrets/kubernetes.io/serviceaccount/namespace", "karpenter\n");
  in_cluster_environment env;
  env.service_host = "10.96.0.1";
  env.service_port = "443";
  env.root = dir_.string();
  auto cfg = load_in_cluster(env);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->server, "https://10.96.0.1:443");
  EXPECT_EQ(cfg->ca_pem, "CLUSTER CA");
  EXPECT_EQ(cfg->namespace_, "karpenter");
  env.service_host = "fd00::1";
  env.pod_namespace = "from-env";
  auto v6 = load_in_cluster(env);
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->server, "https://[fd00::1]:443");
  EXPECT_EQ(v6->namespace_, "from-env");
}

TEST_F(ConfigFiles, inClusterNeedsHostPortAndToken) {
  in_cluster_environment env;
  env.root = dir_.string();
  EXPECT_FALSE(load_in_cluster(env).ok());
  env.service_host = "10.96.0.1";
  env.service_port = "443";
  auto no_token = load_in_cluster(env);
  ASSERT_FALSE(no_token.ok());
  EXPECT_NE(no_token.error().message.find("token"), std::string::npos);
}

TEST_F(ConfigFiles, aRotatedServiceAccountTokenIsReadAgain) {
  const auto token = write("var/run/secrets/kubernetes.io/serviceaccount/token", "sa-token-1");
  write("var/run/secrets/kubernetes.io/serviceaccount/ca.crt", "CLUSTER CA");
  in_cluster_environment env{"10.96.0.1", "443", "", dir_.string()};
  auto cfg = load_in_cluster(env);
  ASSERT_TRUE(cfg.ok());
  token_source tokens(*cfg);
  EXPECT_EQ(tokens.current(), "sa-token-1");
  EXPECT_EQ(tokens.current(), "sa-token-1");
  // kubelet rotates projected tokens by swapping in a new file.
  const auto fresh = dir_ / "new-token";
  std::ofstream(fresh) << "sa-token-2-longer";
  fs::rename(fresh, token);
  EXPECT_EQ(tokens.current(), "sa-token-2-longer");
  // A vanished file keeps the last good token rather than sending none.
  fs::remove(token);
  EXPECT_EQ(tokens.current(), "sa-token-2-longer");
}

}  // namespace
}  // namespace kp::kube
