#include "config/clusters_file.hpp"

#include <cstring>
#include <optional>

#include <yaml-cpp/yaml.h>

#include "config/text_file.hpp"
#include "core/text/trim.hpp"

namespace kp::config {
namespace {

constexpr std::string_view lab_hint = "for a try-out without Proxmox, run `karpenter-proxmox lab`";

const std::vector<std::string> cluster_keys = {
    "url",      "insecure", "token_id", "token_secret", "token_id_file", "token_secret_file",
    "username", "password", "region",   "ca_file"};

struct cluster_context {
  std::string source;
  std::size_t index = 0;  // 1-based
  std::string region;

  error fail(const std::string& why) const {
    std::string who = "cluster " + std::to_string(index);
    if (!region.empty()) who += " (region \"" + region + "\")";
    return make_error("invalid_clusters_file", "clusters file " + source + ": " + who + ": " + why);
  }
};

// A scalar field as text; absent or null gives "". Maps and lists are refused without echoing.
result<std::string> scalar(const YAML::Node& entry, const std::string& key,
                           const cluster_context& where) {
  YAML::Node node = entry[key];
  if (!node || node.IsNull()) return std::string();
  if (!node.IsScalar()) return where.fail(key + " must be a single value");
  return node.Scalar();
}

result<proxmox_cluster> read_cluster(const YAML::Node& entry, cluster_context where) {
  if (!entry.IsMap()) return where.fail("expected a mapping with url, region and credentials");
  for (const auto& item : entry) {
    std::string key = item.first.IsScalar() ? item.first.Scalar() : std::string();
    bool known = false;
    for (const auto& k : cluster_keys) known = known || k == key;
    if (!known) {
      std::string allowed;
      for (const auto& k : cluster_keys) allowed += (allowed.empty() ? "" : ", ") + k;
      return where.fail("unknown key \"" + key + "\": allowed keys are " + allowed);
    }
  }
  proxmox_cluster c;
  std::string token_secret, token_id_file, token_secret_file, password, ca_file;
  struct field {
    const char* key;
    std::string* target;
  };
  for (auto [key, target] :
       {field{"region", &c.region}, field{"url", &c.url}, field{"token_id", &c.token_id},
        field{"token_secret", &token_secret}, field{"token_id_file", &token_id_file},
        field{"token_secret_file", &token_secret_file}, field{"username", &c.username},
        field{"password", &password}, field{"ca_file", &ca_file}}) {
    auto value = scalar(entry, key, where);
    if (!value) return value.error();
    *target = std::string(text::trim(*value));
    if (std::string_view(key) == "region") where.region = c.region;
  }
  if (YAML::Node insecure = entry["insecure"]; insecure && !insecure.IsNull()) {
    bool flag = false;
    if (!insecure.IsScalar() || !YAML::convert<bool>::decode(insecure, flag)) {
      return where.fail("insecure must be true or false");
    }
    c.insecure = flag;
  }

  if (!ca_file.empty()) {
    auto content = read_text_file(ca_file);
    if (!content) {
      return where.fail("ca_file " + ca_file + ": cannot read it (" + content.error().message +
                        ")");
    }
    if (content->find("-----BEGIN CERTIFICATE-----") == std::string::npos) {
      return where.fail("ca_file " + ca_file + ": no PEM certificate in it");
    }
    c.ca_pem = std::move(*content);
  }
  if (c.url.empty()) return where.fail("url is required (e.g. https://pve.example:8006/api2/json)");
  if (c.url.rfind("http://", 0) != 0 && c.url.rfind("https://", 0) != 0) {
    return where.fail("url \"" + strip_url_userinfo(c.url) +
                      "\" must start with http:// or https://");
  }
  if (c.region.empty())
    return where.fail("region is required (it becomes topology.kubernetes.io/region)");

  bool has_user = !c.username.empty() || !password.empty();
  bool has_token = !c.token_id.empty() || !token_secret.empty() || !token_id_file.empty() ||
                   !token_secret_file.empty();
  if (has_user && has_token) {
    return where.fail(
        "username/password and token_id/token_secret are mutually exclusive: use one of them");
  }
  if (has_user) {
    if (c.username.empty() || password.empty()) {
      return where.fail("username and password must be given together");
    }
    c.password = secret(std::move(password));
    return c;
  }
  if (!has_token) {
    return where.fail(
        "no credentials: set token_id and token_secret (or token_id_file and token_secret_file), "
        "or username and password");
  }
  if (!c.token_id.empty() && !token_id_file.empty()) {
    return where.fail("set token_id or token_id_file, not both");
  }
  if (!token_secret.empty() && !token_secret_file.empty()) {
    return where.fail("set token_secret or token_secret_file, not both");
  }
  if (!token_id_file.empty()) {
    auto content = read_text_file(token_id_file);
    if (!content) {
      return where.fail("token_id_file " + token_id_file + ": cannot read it (" +
                        content.error().message + ")");
    }
    c.token_id = std::string(text::trim(*content));
  }
  if (!token_secret_file.empty()) {
    auto content = read_text_file(token_secret_file);
    if (!content) {
      return where.fail("token_secret_file " + token_secret_file + ": cannot read it (" +
                        content.error().message + ")");
    }
    token_secret = std::string(text::trim(*content));
  }
  if (c.token_id.empty())
    return where.fail("token_secret is given but token_id is missing or empty");
  if (token_secret.empty()) {
    return where.fail("token_id is given but token_secret is missing or empty");
  }
  c.token_secret = secret(std::move(token_secret));
  return c;
}

}  // namespace

std::string proxmox_cluster::api_base() const {
  std::string base = url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  constexpr std::string_view suffix = "/api2/json";
  if (base.size() < suffix.size() ||
      base.compare(base.size() - suffix.size(), suffix.size(), suffix) != 0) {
    base += suffix;
  }
  return base;
}

std::string strip_url_userinfo(std::string_view url) {
  auto scheme = url.find("://");
  if (scheme == std::string_view::npos) return std::string(url);
  auto authority_begin = scheme + 3;
  auto authority_end = url.find_first_of("/?#", authority_begin);
  auto at = url.rfind('@', authority_end == std::string_view::npos ? url.size() : authority_end);
  if (at == std::string_view::npos || at < authority_begin) return std::string(url);
  return std::string(url.substr(0, authority_begin)) + std::string(url.substr(at + 1));
}

result<clusters_file> parse_clusters_yaml(std::string_view text, const std::string& source) {
  auto fail = [&](const std::string& why) -> error {
    return make_error("invalid_clusters_file", "clusters file " + source + ": " + why);
  };
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    // e.msg is yaml-cpp's fixed description; the offending text itself is never echoed.
    return fail("malformed YAML at line " + std::to_string(e.mark.line + 1) + ", column " +
                std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  if (!root.IsMap()) return fail("expected a mapping with a clusters: list");
  for (const auto& item : root) {
    std::string key = item.first.IsScalar() ? item.first.Scalar() : std::string();
    if (key != "clusters" && key != "features") {
      return fail("unknown key \"" + key + "\": allowed keys are clusters, features");
    }
  }
  clusters_file out;
  if (YAML::Node features = root["features"]; features && !features.IsNull()) {
    if (!features.IsMap()) return fail("features must be a mapping such as {provider: default}");
    for (const auto& item : features) {
      std::string key = item.first.IsScalar() ? item.first.Scalar() : std::string();
      if (key != "provider")
        return fail("features: unknown key \"" + key + "\": allowed: provider");
    }
    if (YAML::Node provider = features["provider"]; provider && !provider.IsNull()) {
      if (!provider.IsScalar() || provider.Scalar() != "default") {
        std::string given = provider.IsScalar() ? provider.Scalar() : std::string("(not a value)");
        return fail("features.provider \"" + given + "\" is not supported: allowed: default");
      }
    }
  }
  YAML::Node list = root["clusters"];
  if (!list || list.IsNull() || (list.IsSequence() && list.size() == 0)) {
    return fail("no clusters: list at least one Proxmox cluster under clusters:");
  }
  if (!list.IsSequence()) return fail("clusters must be a list");
  for (std::size_t i = 0; i < list.size(); ++i) {
    auto cluster = read_cluster(list[i], cluster_context{source, i + 1, ""});
    if (!cluster) return cluster.error();
    for (std::size_t j = 0; j < out.clusters.size(); ++j) {
      if (out.clusters[j].region == cluster->region) {
        return fail("clusters " + std::to_string(j + 1) + " and " + std::to_string(i + 1) +
                    " both use region \"" + cluster->region + "\": regions must be unique");
      }
    }
    out.clusters.push_back(std::move(*cluster));
  }
  return out;
}

result<clusters_file> load_clusters_file(const std::string& path) {
  if (path.empty()) {
    return make_error("no_clusters_file",
                      "no clusters file: set --cloud-config or CLOUD_CONFIG to the Proxmox "
                      "clusters file; " +
                          std::string(lab_hint));
  }
  auto text = read_text_file(path);
  if (!text) {
    return make_error("unreadable_clusters_file", "clusters file " + path + ": cannot read it (" +
                                                      text.error().message + "); " +
                                                      std::string(lab_hint));
  }
  return parse_clusters_yaml(*text, path);
}

}  // namespace kp::config
