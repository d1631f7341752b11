#pragma once
// Where the API server is and how to authenticate: from a kubeconfig file (contexts, clusters,
// users; token, tokenFile, client certificate and key as files or inline data, CA, insecure-
// skip-tls-verify; relative paths resolved against the kubeconfig's directory) or from the
// in-cluster service account. Loading never throws; errors name the file and the entry.
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace kp::kube {

struct client_config {
  std::string server;  // "https://host:port", perhaps with a path prefix
  std::string ca_pem;  // empty: the system's trust store
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;
  std::string client_certificate_pem;
  std::string client_key_pem;
  std::string token;       // a static bearer token
  std::string token_file;  // re-read when it changes (projected service-account tokens rotate)
  std::string username;    // basic auth, rarely used
  std::string password;
  std::string namespace_ = "default";  // the context's or the service account's namespace
  std::string context;                 // the kubeconfig context used, "" in-cluster
};

// Parses kubeconfig text. `base_dir` resolves relative file paths; `context` overrides
// current-context when not empty.
result<client_config> parse_kubeconfig(const std::string& yaml_text, const std::string& base_dir,
                                       const std::string& context = "");

// Loads one kubeconfig file, or a ':'-separated list merged as kubectl does (the first file that
// defines a name wins; so does the first current-context).
result<client_config> load_kubeconfig(const std::string& paths, const std::string& context = "");

struct in_cluster_environment {
  std::string service_host;   // KUBERNETES_SERVICE_HOST
  std::string service_port;   // KUBERNETES_SERVICE_PORT
  std::string pod_namespace;  // POD_NAMESPACE, optional
  // The service-account directory's parent root: tests point it at a temp dir.
  std::string root = "/";
  static in_cluster_environment from_process_environment();
};

// The in-cluster configuration: https://<host>:<port> (IPv6 in brackets), the token file (read
// now to check it exists, re-read later), ca.crt and the namespace file.
result<client_config> load_in_cluster(const in_cluster_environment& env);

// KUBECONFIG if set, else in-cluster when KUBERNETES_SERVICE_HOST/PORT are set, else
// ~/.kube/config.
result<client_config> load_default_config(const std::string& context = "");

// The bearer token to send: a static one or a file re-read whenever its modification time or
// size changes. Thread-safe.
class token_source {
 public:
  explicit token_source(const client_config& config);
  // The current token ("" if none); re-reads the file when it changed.
  std::string current();
  // Re-reads the file now (after a 401).
  void refresh();

 private:
  std::mutex mutex_;
  std::string token_;
  std::string file_;
  std::optional<std::pair<std::int64_t, std::uintmax_t>> stamp_;  // mtime (ns), size
};

}  // namespace kp::kube
