#include "observability/endpoints.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace kp::obs {
namespace {

transport::http_response text_response(int status, std::string body,
                                       const std::string& type = "text/plain; charset=utf-8") {
  transport::http_response r;
  r.status = status;
  r.headers = {{"Content-Type", type}};
  r.body = std::move(body);
  return r;
}

bool is_read(const transport::http_request& request) {
  return request.method == "GET" || request.method == "HEAD";
}

transport::http_response not_allowed() {
  auto r = text_response(405, "method not allowed: use GET or HEAD\n");
  r.headers.emplace_back("Allow", "GET, HEAD");
  return r;
}

// `name=<family>` (or `name[]=`, repeatable) in the query: serve only those families. Metric
// names need no percent-decoding ([a-zA-Z0-9_:]).
std::vector<std::string> requested_families(std::string_view query) {
  std::vector<std::string> out;
  while (!query.empty()) {
    auto amp = query.find('&');
    auto pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    for (std::string_view key : {"name=", "name[]=", "name%5B%5D="}) {
      if (pair.rfind(key, 0) == 0 && pair.size() > key.size()) {
        out.emplace_back(pair.substr(key.size()));
        break;
      }
    }
  }
  return out;
}

}  // namespace

transport::server_options endpoint_server_options(std::string address, std::uint16_t port) {
  using namespace std::chrono_literals;
  transport::server_options o;
  o.address = std::move(address);
  o.port = port;
  o.body_limit = 1024;
  o.max_connections = 32;
  o.header_timeout = 5s;
  o.header_limit = 8 * 1024;
  o.chunked_bodies = false;  // GET and HEAD only: a body is never needed here
  o.idle_timeout = 30s;
  o.read_timeout = 5s;
  o.write_timeout = 10s;
  return o;
}

transport::request_handler metrics_endpoint(std::shared_ptr<metrics_registry> metrics) {
  return [metrics](transport::http_request request,
                   std::shared_ptr<transport::http_exchange> exchange) {
    if (request.path() != "/metrics") {
      exchange->respond(text_response(404, "not found: metrics are at /metrics\n"));
    } else if (!is_read(request)) {
      exchange->respond(not_allowed());
    } else {
      // Sent as the scraper takes it: the text of 100,000 pod series is never held whole.
      exchange->respond_pulled(200, {{"Content-Type", metrics_content_type}},
                               metrics->text_pieces(requested_families(request.query())));
    }
  };
}

transport::request_handler health_endpoint(std::shared_ptr<health_state> health) {
  return [health](transport::http_request request,
                  std::shared_ptr<transport::http_exchange> exchange) {
    auto path = request.path();
    if (path != "/healthz" && path != "/readyz") {
      exchange->respond(text_response(404, "not found: use /healthz or /readyz\n"));
      return;
    }
    if (!is_read(request)) {
      exchange->respond(not_allowed());
      return;
    }
    probe_report report = path == "/healthz" ? health->liveness() : health->readiness();
    exchange->respond(text_response(report.ok ? 200 : 503, report.body + "\n"));
  };
}

}  // namespace kp::obs
