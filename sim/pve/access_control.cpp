// Authentication: API tokens (Authorization: PVEAPIToken=...), tickets (cookie or header) with
// CSRF tokens for writes, and POST /access/ticket.
#include "sim/pve/access_control.hpp"

#include <openssl/rand.h>

#include <algorithm>
#include <cctype>

#include "core/text/base64.hpp"
#include "sim/pve/api_router.hpp"
#include "sim/pve/number_text.hpp"
#include "sim/pve/world_model.hpp"

namespace kp::sim::pve {

namespace json = boost::json;

namespace {

std::string random_base64(std::size_t bytes) {
  std::string raw(bytes, '\0');
  RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(bytes));
  return kp::text::base64_encode(raw);
}

constexpr auto ticket_lifetime = std::chrono::hours(2);

}  // namespace

access_control::access_control(world_model& world) : world_(world) {
  for (const auto& u : world_.topo().users) {
    if (!u.password.empty()) passwords_[u.userid] = u.password;
    for (const auto& tk : u.tokens) token_secrets_[u.userid + "!" + tk.id] = tk.secret;
  }
}

void access_control::add_routes(api_router& router) {
  router.add(
      "POST", "/access/ticket", [this](api_call& c) { return post_ticket(c); }, true);
  router.add(
      "GET", "/access/ticket", [](api_call&) { return api_reply::ok(nullptr); }, true);
  router.add(
      "GET", "/access/domains",
      [](api_call&) {
        return api_reply::ok(
            json::array{json::object{{"realm", "pam"},
                                     {"type", "pam"},
                                     {"comment", "Linux PAM standard authentication"}},
                        json::object{{"realm", "pve"},
                                     {"type", "pve"},
                                     {"comment", "Proxmox VE authentication server"}}});
      },
      true);
}

result<api_identity> access_control::authenticate(const transport::http_request& request,
                                                  const std::string& path, bool& needs_csrf_check) {
  needs_csrf_check = false;
  std::string auth(request.header("Authorization"));
  if (auto p = auth.find("PVEAPIToken");
      p != std::string::npos && (p == 0 || std::isspace(static_cast<unsigned char>(auth[p - 1])))) {
    std::string value = auth.substr(p + 11);
    if (!value.empty() && (value[0] == '=' || value[0] == ' ')) value = value.substr(1);
    if (auto semi = value.find(';'); semi != std::string::npos) value.resize(semi);
    value = url_decode(value, false);
    auto eq = value.rfind('=');
    if (eq == std::string::npos) return make_error("401", "invalid token value!");
    std::string id = value.substr(0, eq), secret = value.substr(eq + 1);
    auto it = token_secrets_.find(id);
    if (it == token_secrets_.end()) {
      auto bang = id.find('!');
      return make_error("401", bang == std::string::npos
                                   ? "invalid token value!"
                                   : "no such token '" + id.substr(bang + 1) + "' for user '" +
                                         id.substr(0, bang) + "'");
    }
    if (it->second != secret) return make_error("401", "invalid token value!");
    auto bang = id.find('!');
    return api_identity{id.substr(0, bang), id.substr(bang + 1)};
  }
  std::string ticket;
  std::string cookie(request.header("Cookie"));
  if (auto p = cookie.find("PVEAuthCookie="); p != std::string::npos) {
    ticket = cookie.substr(p + 14);
    if (auto semi = ticket.find(';'); semi != std::string::npos) ticket.resize(semi);
  } else if (auth.rfind("PVEAuthCookie=", 0) == 0) {
    ticket = auth.substr(14);
  }
  if (ticket.empty()) return make_error("401", "No ticket");
  ticket = url_decode(ticket, false);
  auto it = tickets_.find(ticket);
  if (it == tickets_.end() ||
      std::chrono::system_clock::now() - it->second.issued > ticket_lifetime)
    return make_error("401", "permission denied - invalid PVE ticket");
  // Browser form uploads skip the CSRF check.
  needs_csrf_check = request.method != "GET" && path.find("/upload") == std::string::npos;
  if (needs_csrf_check && std::string(request.header("CSRFPreventionToken")) != it->second.csrf)
    return make_error("401", "Permission denied - invalid csrf token");
  return api_identity{it->second.user, ""};
}

api_reply access_control::post_ticket(api_call& c) {
  auto username = c.params.get_or("username", "");
  auto password = c.params.get_or("password", "");
  if (username.find('@') == std::string::npos && c.params.has("realm"))
    username += "@" + c.params.get_or("realm", "");
  bool ok = false;
  if (auto it = passwords_.find(username); it != passwords_.end() && it->second == password)
    ok = true;
  if (auto it = tickets_.find(password);
      it != tickets_.end() && it->second.user == username &&
      std::chrono::system_clock::now() - it->second.issued < ticket_lifetime)
    ok = true;  // renewal with a valid ticket
  if (!ok) return api_reply::fail(401, "authentication failure");
  const std::string hex_time = upper_hex8(static_cast<std::uint64_t>(world_.now_epoch()));
  std::string ticket = "PVE:" + username + ":" + hex_time + "::" + random_base64(256);
  std::string csrf = hex_time + ":" + random_base64(32);
  csrf.erase(std::remove(csrf.begin(), csrf.end(), '='), csrf.end());
  tickets_[ticket] = {username, csrf, std::chrono::system_clock::now()};
  json::object cap = {
      {"vms", json::object{{"VM.Allocate", 1}, {"VM.Clone", 1}, {"VM.Config.CPU", 1}}},
      {"nodes", json::object{{"Sys.Audit", 1}}}};
  return api_reply::ok(json::object{{"username", username},
                                    {"ticket", ticket},
                                    {"CSRFPreventionToken", csrf},
                                    {"cap", cap},
                                    {"clustername", world_.topo().cluster_name}});
}

}  // namespace kp::sim::pve
