#pragma once
// Where the Kubernetes API is: from a kubeconfig (its current context) or, inside a pod, from the
// in-cluster service environment and service account files. Only what connecting needs; the
// Kubernetes client (protocol/kube) owns authentication beyond a bearer token.
#include <string>

#include "config/command_line.hpp"
#include "config/secret.hpp"
#include "core/result.hpp"

namespace kp::config {

struct kube_endpoint {
  std::string server;  // https://host:port
  std::string ca_pem;  // empty: system trust store
  bool insecure = false;
  secret token;        // bearer token, may be empty (client certificates are not read here)
  std::string source;  // "kubeconfig <path>" or "in-cluster"
};

// kubeconfig: --kubeconfig/KUBECONFIG (first path of a ':' list); empty means in-cluster, which
// needs KUBERNETES_SERVICE_HOST. `service_account_dir` is where in-cluster files live.
result<kube_endpoint> resolve_kube_endpoint(
    const std::string& kubeconfig, const environment& env,
    const std::string& service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount");

// Standard base64 (padding optional); nullopt-like error on bad input.
result<std::string> decode_base64(std::string_view text);

}  // namespace kp::config
