#pragma once
// Internal to sim/pve: the dispatcher in front of every API area. It splits /api2/json/<path>,
// finds the route, authenticates, collects parameters (body, then query, then path), checks the
// path parameters Proxmox's schema checks, applies injected faults, calls the area's handler and
// wraps its reply in Proxmox's envelope. What a handler throws becomes a 500, never silence.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "protocol/transport/http_message.hpp"
#include "sim/pve/api_call.hpp"

namespace kp::sim::pve {

class world_model;
class access_control;
class request_stats;

using route_handler = std::function<api_reply(api_call&)>;

class api_router {
 public:
  api_router(world_model& world, access_control& access, request_stats& stats)
      : world_(world), access_(access), stats_(stats) {}

  // `path` is a template in which {x} captures one segment. Public routes need no credentials.
  void add(std::string method, std::string path, route_handler handler, bool public_path = false);

  // Handles one /api2/... request and replies through `reply` (possibly later).
  void handle(const transport::http_request& request,
              std::function<void(transport::http_response)> reply);

 private:
  struct route {
    std::string method;
    std::string path;
    std::vector<std::string> parts;
    route_handler handler;
    bool public_path = false;
  };
  const route* match(const std::string& method, const std::vector<std::string>& segments,
                     std::map<std::string, std::string>& captures) const;
  api_reply dispatch(const route& r, api_call& call);

  world_model& world_;
  access_control& access_;
  request_stats& stats_;
  std::vector<route> routes_;
};

// The Proxmox envelope: {"data": ...} (+ "total"), errors with data null, "errors" and "message",
// and the message's first line as the reason phrase.
transport::http_response render_reply(const api_reply& r);

}  // namespace kp::sim::pve
