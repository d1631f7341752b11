#include "config/kube_endpoint.hpp"

#include <optional>

#include <yaml-cpp/yaml.h>

#include "config/text_file.hpp"

namespace kp::config {
namespace {

// The `inner` mapping of the list entry called `name`; nullopt when there is none (a default
// YAML::Node would count as defined).
std::optional<YAML::Node> find_named(const YAML::Node& list, const std::string& name,
                                     const char* inner) {
  if (!list || !list.IsSequence()) return std::nullopt;
  for (const auto& item : list) {
    if (item.IsMap() && item["name"] && item["name"].IsScalar() && item["name"].Scalar() == name) {
      YAML::Node found = item[inner];
      if (found && found.IsMap()) return found;
    }
  }
  return std::nullopt;
}

std::string text_of(const YAML::Node& node, const char* key) {
  if (!node || !node.IsMap()) return {};
  YAML::Node value = node[key];
  return value && value.IsScalar() ? value.Scalar() : std::string();
}

result<kube_endpoint> from_kubeconfig(const std::string& path) {
  auto fail = [&](const std::string& why) {
    return make_error("invalid_kubeconfig", "kubeconfig " + path + ": " + why);
  };
  auto text = read_text_file(path);
  if (!text) return fail("cannot read it (" + text.error().message + ")");
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    return fail("malformed YAML at line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!root.IsMap()) return fail("expected a kubeconfig mapping");
  std::string context_name = text_of(root, "current-context");
  if (context_name.empty()) return fail("current-context is not set");
  auto context = find_named(root["contexts"], context_name, "context");
  if (!context) return fail("context \"" + context_name + "\" is not defined");
  std::string cluster_name = text_of(*context, "cluster");
  auto cluster = find_named(root["clusters"], cluster_name, "cluster");
  if (!cluster) return fail("cluster \"" + cluster_name + "\" is not defined");
  kube_endpoint out;
  out.source = "kubeconfig " + path;
  out.server = text_of(*cluster, "server");
  if (out.server.empty()) return fail("cluster \"" + cluster_name + "\" has no server");
  out.insecure = text_of(*cluster, "insecure-skip-tls-verify") == "true";
  if (auto data = text_of(*cluster, "certificate-authority-data"); !data.empty()) {
    auto pem = decode_base64(data);
    if (!pem) return fail("certificate-authority-data is not valid base64");
    out.ca_pem = *pem;
  } else if (auto file = text_of(*cluster, "certificate-authority"); !file.empty()) {
    auto pem = read_text_file(file);
    if (!pem) return fail("certificate-authority " + file + ": cannot read it");
    out.ca_pem = *pem;
  }
  if (auto user = find_named(root["users"], text_of(*context, "user"), "user")) {
    out.token = secret(text_of(*user, "token"));
  }
  return out;
}

}  // namespace

result<std::string> decode_base64(std::string_view text) {
  auto value_of = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=' || c == '\n' || c == '\r' || c == ' ') continue;
    int v = value_of(c);
    if (v < 0) return make_error("invalid_base64", "invalid base64");
    buffer = (buffer << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  return out;
}

result<kube_endpoint> resolve_kube_endpoint(const std::string& kubeconfig, const environment& env,
                                            const std::string& service_account_dir) {
  if (!kubeconfig.empty()) {
    std::string first = kubeconfig.substr(0, kubeconfig.find(':'));
    return from_kubeconfig(first);
  }
  auto host = env("KUBERNETES_SERVICE_HOST");
  if (!host) {
    return make_error("no_kubernetes",
                      "no Kubernetes API: not running in a cluster (KUBERNETES_SERVICE_HOST is "
                      "unset) and no kubeconfig given: set --kubeconfig or KUBECONFIG");
  }
  std::string port = env("KUBERNETES_SERVICE_PORT").value_or("443");
  bool ipv6 = host->find(':') != std::string::npos;
  kube_endpoint out;
  out.source = "in-cluster";
  out.server = "https://" + (ipv6 ? "[" + *host + "]" : *host) + ":" + port;
  if (auto ca = read_text_file(service_account_dir + "/ca.crt")) out.ca_pem = *ca;
  if (auto token = read_text_file(service_account_dir + "/token")) {
    std::string t = *token;
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
    out.token = secret(std::move(t));
  }
  return out;
}

}  // namespace kp::config
