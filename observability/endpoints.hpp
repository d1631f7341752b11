#pragma once
// Request handlers for the transport's HTTP server: /metrics on METRICS_PORT, /healthz and
// /readyz on HEALTH_PROBE_PORT. Both answer from thread-safe state, so they run on io threads.
#include <memory>

#include "observability/health_state.hpp"
#include "observability/metrics_registry.hpp"
#include "protocol/transport/http_server.hpp"

namespace kp::obs {

// GET /metrics: the registry's text exposition; anything else 404.
transport::request_handler metrics_endpoint(std::shared_ptr<metrics_registry> metrics);

// GET /healthz: 200 "ok" while live; GET /readyz: 200 "ok" or 503 naming what is missing.
transport::request_handler health_endpoint(std::shared_ptr<health_state> health);

}  // namespace kp::obs
