#include "protocol/kube/client_config.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/text/base64.hpp"
#include "core/text/trim.hpp"

namespace kp::kube {
namespace {

namespace fs = std::filesystem;

// Kubeconfigs, certificates and tokens are small; a path to something endless (/dev/zero) or
// huge is refused rather than read into memory.
constexpr std::size_t max_file_bytes = 16u << 20;

result<std::string> read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("config", what + ": cannot read file " + path);
  std::string out;
  char chunk[64 * 1024];
  while (in) {
    in.read(chunk, sizeof chunk);
    out.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (out.size() > max_file_bytes) {
      return make_error("config", what + ": file " + path + " is larger than " +
                                      std::to_string(max_file_bytes) + " bytes");
    }
  }
  return out;
}

std::string resolve(const std::string& path, const std::string& base_dir) {
  if (path.empty() || fs::path(path).is_absolute() || base_dir.empty()) return path;
  return (fs::path(base_dir) / path).lexically_normal().string();
}

std::string scalar(const YAML::Node& node, const char* key) {
  const auto v = node[key];
  if (!v || !v.IsScalar()) return "";
  return v.Scalar();
}

bool boolean(const YAML::Node& node, const char* key) {
  const auto v = node[key];
  if (!v || !v.IsScalar()) return false;
  return v.Scalar() == "true" || v.Scalar() == "True" || v.Scalar() == "TRUE";
}

// One kubeconfig file with its relative paths already resolved, so files can be merged.
struct kubeconfig_file {
  std::string current_context;
  std::map<std::string, YAML::Node> clusters, users, contexts;
  std::string base_dir;
  std::map<std::string, std::string> cluster_dir, user_dir;  // which file defined the entry
};

result<kubeconfig_file> parse_file(const std::string& text, const std::string& base_dir,
                                   const std::string& name) {
  kubeconfig_file f;
  f.base_dir = base_dir;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return make_error("config", name + ": invalid YAML: " + e.what());
  }
  if (root.IsNull()) return f;  // an empty file defines nothing
  if (!root.IsMap()) return make_error("config", name + ": expected a mapping at the top level");
  f.current_context = scalar(root, "current-context");
  auto collect = [&](const char* list, const char* inner, std::map<std::string, YAML::Node>& out,
                     std::map<std::string, std::string>* dirs) -> status {
    const auto items = root[list];
    if (!items || items.IsNull()) return {};
    if (!items.IsSequence()) return make_error("config", name + ": " + list + " must be a list");
    for (std::size_t i = 0; i < items.size(); ++i) {
      const auto item = items[i];
      const std::string n = item.IsMap() ? scalar(item, "name") : "";
      if (n.empty())
        return make_error("config", name + ": " + list + "[" + std::to_string(i) + "] has no name");
      if (!item[inner] || !item[inner].IsMap()) {
        return make_error("config", name + ": " + list + "[" + std::to_string(i) + "]." + inner +
                                        " must be a mapping");
      }
      if (!out.count(n)) {
        out[n] = item[inner];
        if (dirs) (*dirs)[n] = base_dir;
      }
    }
    return {};
  };
  if (auto s = collect("clusters", "cluster", f.clusters, &f.cluster_dir); !s) return s.error();
  if (auto s = collect("users", "user", f.users, &f.user_dir); !s) return s.error();
  if (auto s = collect("contexts", "context", f.contexts, nullptr); !s) return s.error();
  return f;
}

// A "-data" field (base64) or a file path field; "" when neither is set.
result<std::string> data_or_file(const YAML::Node& node, const char* data_key, const char* file_key,
                                 const std::string& dir, const std::string& what) {
  const std::string data = scalar(node, data_key);
  if (!data.empty()) {
    auto decoded = text::base64_decode(data);
    if (!decoded) return make_error("config", what + "." + data_key + ": invalid base64");
    return *decoded;
  }
  const std::string path = scalar(node, file_key);
  if (path.empty()) return std::string();
  return read_file(resolve(path, dir), what + "." + file_key);
}

result<client_config> build(const kubeconfig_file& f, const std::string& context_override) {
  client_config cfg;
  cfg.context = context_override.empty() ? f.current_context : context_override;
  if (cfg.context.empty())
    return make_error("config", "kubeconfig: no current-context and no context given");
  auto ctx_it = f.contexts.find(cfg.context);
  if (ctx_it == f.contexts.end())
    return make_error("config", "kubeconfig: context \"" + cfg.context + "\" not found");
  const auto& ctx = ctx_it->second;
  const std::string cluster_name = scalar(ctx, "cluster");
  const std::string user_name = scalar(ctx, "user");
  if (auto ns = scalar(ctx, "namespace"); !ns.empty()) cfg.namespace_ = ns;

  auto cl_it = f.clusters.find(cluster_name);
  if (cl_it == f.clusters.end())
    return make_error("config", "kubeconfig: cluster \"" + cluster_name + "\" not found");
  const auto& cluster = cl_it->second;
  const std::string cdir = f.cluster_dir.at(cluster_name);
  const std::string cwhat = "cluster \"" + cluster_name + "\"";
  cfg.server = scalar(cluster, "server");
  if (cfg.server.empty()) return make_error("config", "kubeconfig: " + cwhat + " has no server");
  while (!cfg.server.empty() && cfg.server.back() == '/') cfg.server.pop_back();
  cfg.insecure_skip_tls_verify = boolean(cluster, "insecure-skip-tls-verify");
  cfg.tls_server_name = scalar(cluster, "tls-server-name");
  auto ca =
      data_or_file(cluster, "certificate-authority-data", "certificate-authority", cdir, cwhat);
  if (!ca) return ca.error();
  cfg.ca_pem = *ca;

  if (!user_name.empty()) {
    auto us_it = f.users.find(user_name);
    if (us_it == f.users.end())
      return make_error("config", "kubeconfig: user \"" + user_name + "\" not found");
    const auto& user = us_it->second;
    const std::string udir = f.user_dir.at(user_name);
    const std::string uwhat = "user \"" + user_name + "\"";
    auto cert = data_or_file(user, "client-certificate-data", "client-certificate", udir, uwhat);
    if (!cert) return cert.error();
    auto key = data_or_file(user, "client-key-data", "client-key", udir, uwhat);
    if (!key) return key.error();
    if (cert->empty() != key->empty()) {
      return make_error(
          "config", "kubeconfig: " + uwhat + " needs both a client certificate and a client key");
    }
    cfg.client_certificate_pem = *cert;
    cfg.client_key_pem = *key;
    cfg.token = scalar(user, "token");
    cfg.token_file = resolve(scalar(user, "tokenFile"), udir);
    if (cfg.token.empty() && !cfg.token_file.empty()) {
      auto t = read_file(cfg.token_file, "kubeconfig: " + uwhat + ".tokenFile");
      if (!t) return t.error();
    }
    cfg.username = scalar(user, "username");
    cfg.password = scalar(user, "password");
    if (user["exec"] || user["auth-provider"]) {
      if (cfg.token.empty() && cfg.token_file.empty() && cfg.client_certificate_pem.empty()) {
        return make_error("config",
                          "kubeconfig: " + uwhat +
                              " uses exec or auth-provider credentials, which are not supported");
      }
    }
  }
  return cfg;
}

std::string getenv_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace

result<client_config> parse_kubeconfig(const std::string& yaml_text, const std::string& base_dir,
                                       const std::string& context) {
  auto f = parse_file(yaml_text, base_dir, "kubeconfig");
  if (!f) return f.error();
  return build(*f, context);
}

result<client_config> load_kubeconfig(const std::string& paths, const std::string& context) {
  kubeconfig_file merged;
  std::size_t start = 0;
  bool any = false;
  while (start <= paths.size()) {
    const auto end = paths.find(':', start);
    const std::string path =
        paths.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? paths.size() + 1 : end + 1;
    if (path.empty()) continue;
    auto text = read_file(path, "kubeconfig");
    if (!text) return text.error();
    const std::string dir = fs::absolute(fs::path(path)).parent_path().string();
    auto f = parse_file(*text, dir, path);
    if (!f) return f.error();
    any = true;
    if (merged.current_context.empty()) merged.current_context = f->current_context;
    // First definition of a name wins, whole entry, as kubectl merges.
    for (auto& [n, v] : f->clusters) {
      if (merged.clusters.emplace(n, v).second) merged.cluster_dir[n] = f->cluster_dir[n];
    }
    for (auto& [n, v] : f->users) {
      if (merged.users.emplace(n, v).second) merged.user_dir[n] = f->user_dir[n];
    }
    for (auto& [n, v] : f->contexts) merged.contexts.emplace(n, v);
  }
  if (!any) return make_error("config", "kubeconfig: no file given");
  return build(merged, context);
}

in_cluster_environment in_cluster_environment::from_process_environment() {
  in_cluster_environment env;
  env.service_host = getenv_or_empty("KUBERNETES_SERVICE_HOST");
  env.service_port = getenv_or_empty("KUBERNETES_SERVICE_PORT");
  env.pod_namespace = getenv_or_empty("POD_NAMESPACE");
  return env;
}

result<client_config> load_in_cluster(const in_cluster_environment& env) {
  if (env.service_host.empty() || env.service_port.empty()) {
    return make_error(
        "config",
        "not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set");
  }
  const fs::path dir = fs::path(env.root) / "var/run/secrets/kubernetes.io/serviceaccount";
  client_config cfg;
  const bool ipv6 = env.service_host.find(':') != std::string::npos;
  cfg.server = "https://" + (ipv6 ? "[" + env.service_host + "]" : env.service_host) + ":" +
               env.service_port;
  cfg.token_file = (dir / "token").string();
  auto token = read_file(cfg.token_file, "in-cluster service account token");
  if (!token) return token.error();
  auto ca = read_file((dir / "ca.crt").string(), "in-cluster CA");
  if (!ca) return ca.error();
  cfg.ca_pem = *ca;
  if (!env.pod_namespace.empty()) {
    cfg.namespace_ = env.pod_namespace;
  } else if (auto ns = read_file((dir / "namespace").string(), "namespace");
             ns.ok() && !text::trim(*ns).empty()) {
    cfg.namespace_ = std::string(text::trim(*ns));
  }
  return cfg;
}

result<client_config> load_default_config(const std::string& context) {
  if (auto paths = getenv_or_empty("KUBECONFIG"); !paths.empty())
    return load_kubeconfig(paths, context);
  auto env = in_cluster_environment::from_process_environment();
  if (!env.service_host.empty() && !env.service_port.empty()) return load_in_cluster(env);
  const std::string home = getenv_or_empty("HOME");
  if (home.empty())
    return make_error("config", "no KUBECONFIG, not in a cluster, and HOME is not set");
  return load_kubeconfig(home + "/.kube/config", context);
}

token_source::token_source(const client_config& config) : token_(config.token) {
  if (config.token.empty()) file_ = config.token_file;
}

std::string token_source::current() {
  std::lock_guard lock(mutex_);
  if (file_.empty()) return token_;
  std::error_code ec;
  const auto mtime = fs::last_write_time(file_, ec);
  const auto size = ec ? 0 : fs::file_size(file_, ec);
  if (ec) return token_;  // keep the last good token while the file is being replaced
  const std::pair<std::int64_t, std::uintmax_t> stamp{
      std::chrono::duration_cast<std::chrono::nanoseconds>(mtime.time_since_epoch()).count(), size};
  if (stamp_ && *stamp_ == stamp) return token_;
  if (auto t = read_file(file_, "token"); t.ok()) {
    token_ = std::string(text::trim(*t));
    stamp_ = stamp;
  }
  return token_;
}

void token_source::refresh() {
  {
    std::lock_guard lock(mutex_);
    stamp_.reset();
  }
  (void)current();
}

}  // namespace kp::kube
