#pragma once
// One REST call as the handlers of every API area see it (who calls, path captures, merged
// parameters) and the reply they give back, which the router wraps in Proxmox's envelope.
#include <boost/json.hpp>

#include <map>
#include <optional>
#include <string>

#include "core/result.hpp"
#include "protocol/transport/http_message.hpp"
#include "sim/pve/request_params.hpp"

namespace kp::sim::pve {

// Who is calling: a user with a ticket, or an API token (user + tokenid).
struct api_identity {
  std::string user;
  std::string tokenid;
  bool is_token() const { return !tokenid.empty(); }
  bool is_root() const { return user == "root@pam" && tokenid.empty(); }
  std::string full() const { return tokenid.empty() ? user : user + "!" + tokenid; }
};

struct api_call {
  std::string method;
  std::string path_template;                // /nodes/{node}/qemu/{vmid}/config
  std::map<std::string, std::string> path;  // node, vmid, ...
  request_params params;
  const transport::http_request* request = nullptr;
  api_identity who;
};

struct api_reply {
  int status = 200;
  boost::json::value data;  // null on errors
  std::string message;      // reason phrase for errors
  boost::json::object errors;
  std::optional<boost::json::value> total;

  static api_reply ok(boost::json::value v) { return api_reply{200, std::move(v), "", {}, {}}; }
  static api_reply ok(std::nullptr_t) { return ok(boost::json::value(nullptr)); }
  static api_reply ok(const std::string& s) {
    return ok(boost::json::value(boost::json::string_view(s)));
  }
  static api_reply fail(int status, std::string message) {
    return api_reply{status, nullptr, std::move(message), {}, {}};
  }
  // 400 Parameter verification failed. with one parameter error.
  static api_reply param(const std::string& name, const std::string& why) {
    api_reply r{400, nullptr, "Parameter verification failed.", {}, {}};
    r.errors[name] = why;
    return r;
  }
};

// Turns an error from a helper into a reply: code "param:<name>" is a 400 parameter error, a
// numeric code is that HTTP status, anything else a 500.
api_reply reply_from(const kp::error& e);

}  // namespace kp::sim::pve
