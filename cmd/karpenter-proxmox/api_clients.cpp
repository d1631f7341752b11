#include "cmd/karpenter-proxmox/api_clients.hpp"

namespace kp::cmd {

result<kube::client_config> kube_client_config(const config::settings& settings) {
  if (!settings.kubeconfig.empty()) return kube::load_kubeconfig(settings.kubeconfig);
  return kube::load_in_cluster(kube::in_cluster_environment::from_process_environment());
}

proxmox::client_settings proxmox_client_settings(const config::settings& settings,
                                                 const config::proxmox_cluster& cluster,
                                                 transport::failure_reporter on_failure) {
  proxmox::client_settings s;
  s.url = cluster.api_base();
  if (cluster.uses_token()) {
    s.credentials = proxmox::token_credentials{cluster.token_id, cluster.token_secret.reveal()};
  } else {
    s.credentials = proxmox::password_credentials{cluster.username, cluster.password.reveal()};
  }
  s.transport.ca_pem = cluster.ca_pem;
  s.transport.insecure_skip_verify = cluster.insecure;
  s.transport.request_timeout =
      std::chrono::duration_cast<std::chrono::milliseconds>(settings.proxmox_request_timeout);
  s.transport.connect_timeout = std::chrono::seconds(10);
  s.task_answer_wait =
      std::chrono::duration_cast<std::chrono::seconds>(settings.proxmox_task_answer_wait);
  s.transport.on_failure = std::move(on_failure);
  return s;
}

}  // namespace kp::cmd
