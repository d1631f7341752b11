#pragma once
// How every command of this binary reaches the APIs from the settings: the Kubernetes client
// configuration (--kubeconfig, else in-cluster) and one Proxmox client's settings per entry of
// the clusters file (token or password, CA, TLS verification, PROXMOX_REQUEST_TIMEOUT). The
// controller and the read-only tools (plan) share these, so they reach the same endpoints the
// same way.
#include "config/clusters_file.hpp"
#include "config/settings.hpp"
#include "core/result.hpp"
#include "protocol/kube/client_config.hpp"
#include "protocol/proxmox/client.hpp"
#include "protocol/transport/failure_report.hpp"

namespace kp::cmd {

result<kube::client_config> kube_client_config(const config::settings& settings);

// Without on_request (the controller adds its metrics).
proxmox::client_settings proxmox_client_settings(const config::settings& settings,
                                                 const config::proxmox_cluster& cluster,
                                                 transport::failure_reporter on_failure);

}  // namespace kp::cmd
