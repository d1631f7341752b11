// Where the Kubernetes API is: the kubeconfig's current context, or the in-cluster environment.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "config/kube_endpoint.hpp"

namespace kp::config {
namespace {

environment env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

class KubeEndpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kp-kube-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& content) {
    auto path = (dir_ / name).string();
    std::ofstream(path) << content;
    return path;
  }
  std::filesystem::path dir_;
};

TEST_F(KubeEndpoint, TheCurrentContextOfAKubeconfigGivesServerCaAndToken) {
  // "-----BEGIN CERT-----\n" in base64
  auto path = write("kc", R"(apiVersion: v1
kind: Config
current-context: b
contexts:
- {name: a, context: {cluster: one, user: x}}
- {name: b, context: {cluster: two, user: y}}
clusters:
- {name: one, cluster: {server: "https://one:6443"}}
- {name: two, cluster: {server: "https://two:6443", certificate-authority-data: LS0tLS1CRUdJTiBDRVJULS0tLS0K}}
users:
- {name: x, user: {token: wrong}}
- {name: y, user: {token: right-token}}
)");
  auto e = resolve_kube_endpoint(path, env_of({}));
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->server, "https://two:6443");
  EXPECT_EQ(e->ca_pem, "-----BEGIN CERT-----\n");
  EXPECT_EQ(e->token.reveal(), "right-token");
  EXPECT_FALSE(e->insecure);
  EXPECT_EQ(e->source, "kubeconfig " + path);
}

TEST_F(KubeEndpoint, AKubeconfigWithoutItsPartsIsRefusedNamingWhatIsMissing) {
  EXPECT_NE(resolve_kube_endpoint(write("a", "kind: Config\n"), env_of({}))
                .error()
                .message.find("current-context is not set"),
            std::string::npos);
  EXPECT_NE(resolve_kube_endpoint(write("b", "current-context: z\ncontexts: []\n"), env_of({}))
                .error()
                .message.find("context \"z\" is not defined"),
            std::string::npos);
  EXPECT_NE(resolve_kube_endpoint(write("c", "x: [\n"), env_of({}))
                .error()
                .message.find("malformed YAML"),
            std::string::npos);
}

TEST_F(KubeEndpoint, InClusterUsesTheServiceEnvironmentAndServiceAccountFiles) {
  write("ca.crt", "CA");
  write("token", "sa-token\n");
  auto e = resolve_kube_endpoint(
      "", env_of({{"KUBERNETES_SERVICE_HOST", "10.0.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}}),
      dir_.string());
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->server, "https://10.0.0.1:443");
  EXPECT_EQ(e->ca_pem, "CA");
  EXPECT_EQ(e->token.reveal(), "sa-token");
  auto v6 =
      resolve_kube_endpoint("", env_of({{"KUBERNETES_SERVICE_HOST", "fd00::1"}}), dir_.string());
  EXPECT_EQ(v6->server, "https://[fd00::1]:443");
}

TEST_F(KubeEndpoint, OutsideAClusterWithoutAKubeconfigIsRefused) {
  auto e = resolve_kube_endpoint("", env_of({}));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("set --kubeconfig or KUBECONFIG"), std::string::npos);
}

TEST(Base64, DecodesStandardAlphabetWithOrWithoutPadding) {
  EXPECT_EQ(*decode_base64("aGVsbG8="), "hello");
  EXPECT_EQ(*decode_base64("aGVsbG8"), "hello");
  EXPECT_FALSE(decode_base64("a$b").ok());
}

}  // namespace
}  // namespace kp::config
