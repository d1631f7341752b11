#pragma once
// Request handlers for the transport's HTTP server: /metrics on METRICS_PORT, /healthz and
// /readyz on HEALTH_PROBE_PORT. Both answer from thread-safe state, so they run on io threads.
#include <cstdint>
#include <memory>
#include <string>

#include "observability/health_state.hpp"
#include "observability/metrics_registry.hpp"
#include "protocol/transport/http_server.hpp"

namespace kp::obs {

// Limits for the servers of these endpoints. They listen on every address of the pod and only
// answer small GETs, so a client that sends a body, holds connections or trickles headers is cut
// short instead of costing memory: bodies over 1 KiB get 413, at most 32 connections are open
// at once (503 beyond), headers must arrive within 5 s and fit in 8 KiB.
transport::server_options endpoint_server_options(std::string address, std::uint16_t port);

// GET /metrics: the registry's text exposition (`?name=<family>`, repeatable: only those
// families); anything else 404.
transport::request_handler metrics_endpoint(std::shared_ptr<metrics_registry> metrics);

// GET /healthz: 200 "ok" while live; GET /readyz: 200 "ok" or 503 naming what is missing.
transport::request_handler health_endpoint(std::shared_ptr<health_state> health);

}  // namespace kp::obs
