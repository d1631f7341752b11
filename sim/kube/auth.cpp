#include "sim/kube/auth.hpp"

#include <openssl/crypto.h>

#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {

namespace json = boost::json;

namespace {
// "<6 of [a-z0-9]>.<16 of [a-z0-9]>", the bootstrap token format.
bool is_bootstrap_token(std::string_view t) {
  if (t.size() != 23 || t[6] != '.') return false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (i == 6) continue;
    if (!((t[i] >= 'a' && t[i] <= 'z') || (t[i] >= '0' && t[i] <= '9'))) return false;
  }
  return true;
}

bool equal_secret(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string secret_field(const json::object& secret, std::string_view key) {
  auto enc = string_at(secret, {"data", key});
  if (enc.empty()) return {};
  return base64_decode(enc).value_or("");
}
}  // namespace

api_result<user_info> authenticate(const transport::http_request& request,
                                   const auth_settings& settings, const object_store& store,
                                   std::chrono::system_clock::time_point now) {
  auto authz = request.header("Authorization");
  if (authz.size() > 7 && (authz.substr(0, 7) == "Bearer " || authz.substr(0, 7) == "bearer ")) {
    auto token = authz.substr(7);
    while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
    if (!settings.admin_token.empty() && equal_secret(token, settings.admin_token))
      return user_info{"kubernetes-admin", "", {"system:masters", "system:authenticated"}};
    for (const auto& [known, user] : settings.tokens)
      if (equal_secret(token, known)) return user;
    if (is_bootstrap_token(token)) {
      std::string id(token.substr(0, 6));
      std::string secret(token.substr(7));
      auto s = store.get("/secrets", "kube-system", "bootstrap-token-" + id);
      if (s && string_at(s->object, {"type"}) == "bootstrap.kubernetes.io/token" &&
          !has_deletion_timestamp(s->object) &&
          equal_secret(secret_field(s->object, "token-secret"), secret) &&
          secret_field(s->object, "token-id") == id &&
          secret_field(s->object, "usage-bootstrap-authentication") == "true") {
        auto exp = secret_field(s->object, "expiration");
        auto when = exp.empty() ? std::nullopt : parse_time(exp);
        if (exp.empty() || (when && *when > now)) {
          user_info u{"system:bootstrap:" + id, "", {"system:bootstrappers"}};
          auto extra = secret_field(s->object, "auth-extra-groups");
          std::size_t start = 0;
          while (start < extra.size()) {
            auto comma = extra.find(',', start);
            auto g =
                extra.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            if (g.rfind("system:bootstrappers:", 0) == 0) u.groups.push_back(g);
            if (comma == std::string::npos) break;
            start = comma + 1;
          }
          u.groups.push_back("system:authenticated");
          return u;
        }
      }
    }
    return unauthorized();
  }
  if (!request.peer.common_name.empty()) {
    user_info u{request.peer.common_name, "", request.peer.organizations};
    u.groups.push_back("system:authenticated");
    return u;
  }
  auto path = request.path();
  if (path == "/version" || path == "/healthz" || path == "/livez" || path == "/readyz")
    return user_info{"system:anonymous", "", {"system:unauthenticated"}};
  return unauthorized();
}

bool is_admin(const user_info& user) {
  return user.in_group("system:masters");
}

api_status authorize(const user_info& user, const std::string& verb, const std::string& group,
                     const std::string& resource, const std::string& namespace_name) {
  if (is_admin(user)) return api_ok{};
  bool allowed = false;
  if (resource.empty()) {
    allowed = true;  // discovery, version, OpenAPI
  } else if (user.in_group("system:nodes")) {
    allowed = !(group.empty() && resource == "secrets") && resource != "sim";
  } else if (user.in_group("system:bootstrappers")) {
    allowed = group == "certificates.k8s.io" && resource == "certificatesigningrequests" &&
              (verb == "create" || verb == "get" || verb == "list" || verb == "watch");
  }
  if (allowed) return api_ok{};
  std::string where = namespace_name.empty() ? "at the cluster scope"
                                             : "in the namespace \"" + namespace_name + "\"";
  return forbidden(resource + (group.empty() ? "" : "." + group) + " is forbidden: User \"" +
                   user.name + "\" cannot " + verb + " resource \"" + resource +
                   "\" in API group \"" + group + "\" " + where);
}

}  // namespace kp::sim::kube
