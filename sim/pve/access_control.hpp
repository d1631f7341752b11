#pragma once
// Internal to sim/pve: users, API tokens and tickets; who a request comes from (token or ticket
// plus CSRF token) and the /access endpoints (ticket, domains).
#include <chrono>
#include <map>
#include <string>

#include "core/result.hpp"
#include "protocol/transport/http_message.hpp"
#include "sim/pve/api_call.hpp"

namespace kp::sim::pve {

class world_model;
class api_router;

class access_control {
 public:
  explicit access_control(world_model& world);

  // The caller of a request to `path`; sets `needs_csrf_check` for ticket writes. Errors carry
  // Proxmox's 401 texts.
  result<api_identity> authenticate(const transport::http_request& request, const std::string& path,
                                    bool& needs_csrf_check);

  void add_routes(api_router& router);

 private:
  struct ticket_state {
    std::string user;
    std::string csrf;
    std::chrono::system_clock::time_point issued;
  };
  api_reply post_ticket(api_call& c);

  world_model& world_;
  std::map<std::string, ticket_state> tickets_;       // ticket -> state
  std::map<std::string, std::string> token_secrets_;  // "user@realm!id" -> secret
  std::map<std::string, std::string> passwords_;      // user -> password
};

}  // namespace kp::sim::pve
