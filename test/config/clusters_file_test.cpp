// The Proxmox clusters file: accepted shapes, each refusal, and secrets kept out of every message.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "config/clusters_file.hpp"

namespace kp::config {
namespace {

constexpr const char* token_secret_value = "0b5d-SECRET-TOKEN-a1e7";
constexpr const char* password_value = "hunter2-PASSWORD";

class ClustersFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kp-clusters-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& content) {
    auto path = (dir_ / name).string();
    std::ofstream(path) << content;
    return path;
  }

  // Parses and expects a refusal containing `expected`, one line, and no secret.
  void expect_refused(const std::string& yaml, const std::string& expected) {
    auto parsed = parse_clusters_yaml(yaml, "test.yaml");
    ASSERT_FALSE(parsed.ok()) << "accepted:\n" << yaml;
    const auto& message = parsed.error().message;
    EXPECT_NE(message.find(expected), std::string::npos)
        << "got: " << message << "\nwanted: " << expected;
    EXPECT_EQ(message.rfind("clusters file test.yaml: ", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_EQ(message.find(token_secret_value), std::string::npos) << message;
    EXPECT_EQ(message.find(password_value), std::string::npos) << message;
  }

  std::filesystem::path dir_;
};

TEST_F(ClustersFile, ATokenClusterIsReadWithEveryField) {
  auto parsed = parse_clusters_yaml(fmt::format(R"(
features:
  provider: default
clusters:
  - url: https://pve1:8006/api2/json
    insecure: true
    token_id: "kubernetes@pve!karpenter"
    token_secret: "{}"
    region: Region-1
)",
                                                token_secret_value),
                                    "test.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  ASSERT_EQ(parsed->clusters.size(), 1u);
  const auto& c = parsed->clusters[0];
  EXPECT_EQ(c.url, "https://pve1:8006/api2/json");
  EXPECT_TRUE(c.insecure);
  EXPECT_EQ(c.token_id, "kubernetes@pve!karpenter");
  EXPECT_EQ(c.token_secret.reveal(), token_secret_value);
  EXPECT_EQ(c.region, "Region-1");
  EXPECT_TRUE(c.uses_token());
  EXPECT_EQ(c.api_base(), "https://pve1:8006/api2/json");
  EXPECT_EQ(parsed->provider, "default");
}

TEST_F(ClustersFile, UsernameAndPasswordClustersAndSeveralRegionsAreAccepted) {
  auto parsed = parse_clusters_yaml(fmt::format(R"(
clusters:
  - url: https://pve1:8006/
    username: root@pam
    password: "{}"
    region: a
  - url: http://127.0.0.1:9999
    token_id: t@pve!x
    token_secret: s
    region: b
)",
                                                password_value),
                                    "test.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  ASSERT_EQ(parsed->clusters.size(), 2u);
  EXPECT_FALSE(parsed->clusters[0].uses_token());
  EXPECT_EQ(parsed->clusters[0].password.reveal(), password_value);
  EXPECT_FALSE(parsed->clusters[0].insecure);
  EXPECT_EQ(parsed->clusters[0].api_base(), "https://pve1:8006/api2/json");
  EXPECT_EQ(parsed->clusters[1].api_base(), "http://127.0.0.1:9999/api2/json");
}

TEST_F(ClustersFile, TokenFileVariantsAreReadAndTrimmedUnlikeTheGoProvider) {
  auto id_file = write("id", "kubernetes@pve!karpenter\n");
  auto secret_file = write("secret", std::string(token_secret_value) + "\n");
  auto parsed = parse_clusters_yaml(
      "clusters:\n  - url: https://pve:8006/api2/json\n"
      "    token_id_file: " +
          id_file +
          "\n"
          "    token_secret_file: " +
          secret_file +
          "\n"
          "    region: r\n",
      "test.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->clusters[0].token_id, "kubernetes@pve!karpenter");
  EXPECT_EQ(parsed->clusters[0].token_secret.reveal(), token_secret_value);
}

TEST_F(ClustersFile, AnUnreadableTokenFileIsNamed) {
  expect_refused(
      "clusters:\n  - {url: https://p, region: r, token_id: a@b!c, token_secret_file: "
      "/nonexistent/secret}\n",
      "cluster 1 (region \"r\"): token_secret_file /nonexistent/secret: cannot read it");
}

TEST_F(ClustersFile, ACaFileKeepsVerificationOnWithAPrivateCa) {
  auto ca = write("ca.pem", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
  auto parsed = parse_clusters_yaml(
      "clusters:\n  - {url: https://p, region: r, token_id: a@b!c, "
      "token_secret: s, ca_file: " +
          ca + "}\n",
      "test.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_NE(parsed->clusters[0].ca_pem.find("BEGIN CERTIFICATE"), std::string::npos);
  EXPECT_FALSE(parsed->clusters[0].insecure);
  auto junk = write("junk.pem", "not a certificate");
  expect_refused(
      "clusters:\n  - {url: https://p, region: r, token_id: a@b!c, token_secret: s, "
      "ca_file: " +
          junk + "}\n",
      "ca_file " + junk + ": no PEM certificate in it");
}

TEST_F(ClustersFile, EachInvalidClusterIsRefusedWithOneClearLine) {
  std::string s = token_secret_value;
  std::string p = password_value;
  expect_refused("clusters:\n  - {region: r, token_id: a@b!c, token_secret: " + s + "}\n",
                 "cluster 1 (region \"r\"): url is required");
  expect_refused("clusters:\n  - {url: ftp://x, region: r, token_id: a, token_secret: " + s + "}\n",
                 "url \"ftp://x\" must start with http:// or https://");
  expect_refused("clusters:\n  - {url: https://x, token_id: a, token_secret: " + s + "}\n",
                 "cluster 1: region is required");
  expect_refused("clusters:\n  - {url: https://x, region: r}\n",
                 "cluster 1 (region \"r\"): no credentials");
  expect_refused("clusters:\n  - {url: https://x, region: r, username: root@pam, password: " + p +
                     ", token_id: a, token_secret: " + s + "}\n",
                 "username/password and token_id/token_secret are mutually exclusive");
  expect_refused(
      "clusters:\n  - {url: https://x, region: r, password: " + p + ", token_secret: " + s + "}\n",
      "mutually exclusive");
  expect_refused("clusters:\n  - {url: https://x, region: r, username: root@pam}\n",
                 "username and password must be given together");
  expect_refused("clusters:\n  - {url: https://x, region: r, token_secret: " + s + "}\n",
                 "token_id is missing");
  expect_refused("clusters:\n  - {url: https://x, region: r, token_id: a@b!c}\n",
                 "token_secret is missing");
  expect_refused("clusters:\n  - {url: https://x, region: r, token_id: a, token_secret: " + s +
                     ", token_secret_file: /x}\n",
                 "set token_secret or token_secret_file, not both");
  expect_refused(
      "clusters:\n  - {url: https://x, region: r, insecure: sometimes, token_id: a, "
      "token_secret: " +
          s + "}\n",
      "insecure must be true or false");
  expect_refused(
      "clusters:\n  - {url: https://x, region: r, tokenid: a, token_secret: " + s + "}\n",
      "unknown key \"tokenid\"");
  expect_refused(
      "clusters:\n  - {url: https://x, region: r, token_id: a, token_secret: [" + s + "]}\n",
      "token_secret must be a single value");
  expect_refused("clusters:\n  - {url: https://x, region: r2, token_id: a, token_secret: " + s +
                     "}\n  - {url: https://y, region: 'r\"', token_id: a}\n",
                 "cluster 2");
}

TEST_F(ClustersFile, DuplicateRegionsAreRefused) {
  std::string s = token_secret_value;
  expect_refused("clusters:\n  - {url: https://a, region: same, token_id: a, token_secret: " + s +
                     "}\n  - {url: https://b, region: same, token_id: b, token_secret: " + s +
                     "}\n",
                 "clusters 1 and 2 both use region \"same\": regions must be unique");
}

TEST_F(ClustersFile, FileShapeErrorsAreRefused) {
  expect_refused("clusters: []\n", "no clusters");
  expect_refused("features: {provider: default}\n", "no clusters");
  expect_refused("clusters: {url: x}\n", "clusters must be a list");
  expect_refused("- a\n- b\n", "expected a mapping with a clusters: list");
  expect_refused("cluster:\n  - {}\n", "unknown key \"cluster\"");
  expect_refused(
      "features: {provider: capmox}\nclusters:\n  - {url: https://a, region: r, "
      "token_id: a, token_secret: x}\n",
      "features.provider \"capmox\" is not supported: allowed: default");
}

TEST_F(ClustersFile, MalformedYamlNamesTheLineWithoutEchoingContent) {
  expect_refused(
      std::string("clusters: [ {url: https://a, token_secret: ") + token_secret_value + " }\n",
      "malformed YAML at line");
}

TEST_F(ClustersFile, AMissingOrUnreadableFilePointsToTheLab) {
  auto none = load_clusters_file("");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("CLOUD_CONFIG"), std::string::npos);
  EXPECT_NE(none.error().message.find("karpenter-proxmox lab"), std::string::npos);
  auto missing = load_clusters_file((dir_ / "absent.yaml").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("cannot read it (No such file or directory)"),
            std::string::npos);
  EXPECT_NE(missing.error().message.find("karpenter-proxmox lab"), std::string::npos);
}

TEST_F(ClustersFile, LoadingAValidFileWorks) {
  auto path = write("ok.yaml",
                    "clusters:\n  - {url: https://a, region: r, token_id: a@b!c, "
                    "token_secret: x}\n");
  auto loaded = load_clusters_file(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(loaded->clusters.at(0).region, "r");
}

TEST(Secret, EveryPrintedFormIsRedacted) {
  secret s{token_secret_value};
  std::ostringstream out;
  out << s;
  EXPECT_EQ(out.str(), "<redacted>");
  EXPECT_EQ(fmt::format("{}", s), "<redacted>");
  EXPECT_EQ(fmt::format("{:>12}", s), "  <redacted>");
  EXPECT_EQ(s.reveal(), token_secret_value);
}

TEST(StripUrlUserinfo, RemovesCredentialsFromUrls) {
  EXPECT_EQ(strip_url_userinfo("https://user:pw@host:8006/api2/json"),
            "https://host:8006/api2/json");
  EXPECT_EQ(strip_url_userinfo("https://host/a@b"), "https://host/a@b");
  EXPECT_EQ(strip_url_userinfo("not a url"), "not a url");
}

}  // namespace
}  // namespace kp::config
