#pragma once
// A stand-in until the Kubernetes and Proxmox clients report their own connection state: probes
// one HTTP endpoint (Proxmox <url>/api2/json/version, the Kubernetes API's /version), reports
// the outcome to the readiness actor, retries with exponential backoff while it is unreachable
// and re-checks at a steady interval once connected.
#include <chrono>
#include <memory>
#include <string>

#include <caf/actor_system.hpp>

#include "observability/karpenter_metrics.hpp"
#include "protocol/messages.hpp"
#include "protocol/transport/http_client.hpp"

namespace kp::actors {

struct probe_target {
  std::string component;           // as /readyz names it: "proxmox region r1", "kubernetes api"
  std::string base_url;            // "https://pve:8006/api2/json"
  std::string path;                // "/version"
  transport::header_list headers;  // credentials; never logged
  // Kubernetes answers /version without credentials or with 401/403 when it is up; for Proxmox
  // we send the API token, so only 2xx counts as connected and 401/403 says so.
  bool any_http_status_connects = false;
};

struct probe_timing {
  std::chrono::milliseconds initial_backoff{std::chrono::seconds(1)};
  std::chrono::milliseconds max_backoff{std::chrono::seconds(30)};
  std::chrono::milliseconds recheck_interval{std::chrono::seconds(30)};
  // The request timeout is the HTTP client's (client_options::request_timeout).
};

// What a response (or transport error) means for readiness. Pure; exposed for tests.
protocol::probe_outcome classify_probe_response(const transport::response_result& response,
                                                bool any_http_status_connects);

protocol::endpoint_probe_actor spawn_endpoint_probe(
    caf::actor_system& system, std::shared_ptr<transport::http_client> client, probe_target target,
    probe_timing timing = {}, std::shared_ptr<obs::karpenter_metrics> metrics = {});

}  // namespace kp::actors
