#pragma once
// The REST front of kube-sim: routes Kubernetes API paths (discovery, OpenAPI, resources and
// their subresources, watches) to operations and the watch hub, authenticates and authorizes
// each request, and answers every failure with a Status object of the right code. It never
// throws to the transport: a malformed request is a 400, an unexpected fault a 500.
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "protocol/transport/http_server.hpp"
#include "sim/kube/auth.hpp"
#include "sim/kube/operations.hpp"
#include "sim/kube/watch_hub.hpp"

namespace kp::sim::kube {

struct api_server_settings {
  auth_settings auth;
  std::chrono::seconds default_watch_timeout{1800};
};

class api_server {
 public:
  // Handles POST/GET under /sim/v1/ for admins; returns the JSON reply or an error.
  using control_handler = std::function<api_result<boost::json::object>(
      const std::string& method, std::string_view path, const boost::json::value& body)>;

  api_server(operations& ops, watch_hub& hub, api_server_settings settings);

  void handle(transport::http_request request, std::shared_ptr<transport::http_exchange> exchange);
  void set_control_handler(control_handler h) { controls_ = std::move(h); }
  std::uint64_t requests_served() const { return requests_; }
  // Requests by HTTP method (GET, POST, PUT, PATCH, DELETE, ...), so a test can tell reads from
  // writes.
  const std::map<std::string, std::uint64_t>& requests_by_method() const {
    return requests_by_method_;
  }
  auth_settings& auth() { return settings_.auth; }

 private:
  struct context;
  void dispatch(context& c);
  void serve_resource(context& c, const std::string& group, const std::string& version,
                      const std::vector<std::string>& rest);
  void serve_list(context& c, const resource_type& t, const std::string& ns);
  void serve_scale(context& c, const resource_type& t, const std::string& ns,
                   const std::string& name, const std::string& content_type,
                   const boost::json::value& body, write_options& opts);
  void serve_watch(context& c, const resource_type& t, const std::string& ns);
  void serve_delete_collection(context& c, const resource_type& t, const std::string& ns);

  operations& ops_;
  watch_hub& hub_;
  api_server_settings settings_;
  control_handler controls_;
  std::uint64_t requests_ = 0;
  std::map<std::string, std::uint64_t> requests_by_method_;
};

}  // namespace kp::sim::kube
