#pragma once
// Who is calling and may they: the admin bearer token, bootstrap tokens (Secrets of type
// bootstrap.kubernetes.io/token in kube-system), and client certificates verified by the TLS
// layer (node credentials). Authorization is coarse on purpose: admins may do everything, nodes
// everything but secrets and test controls, bootstrappers only their CSRs.
#include <chrono>
#include <map>
#include <string>

#include "protocol/transport/http_message.hpp"
#include "sim/kube/api_error.hpp"
#include "sim/kube/object_store.hpp"
#include "sim/kube/operations.hpp"

namespace kp::sim::kube {

struct auth_settings {
  std::string admin_token;
  // Further bearer tokens (added and revoked through /sim/v1/tokens, e.g. to test rotation).
  std::map<std::string, user_info> tokens;
};

// 401 for a bad or missing credential (anonymous only reaches the public paths).
api_result<user_info> authenticate(const transport::http_request& request,
                                   const auth_settings& settings, const object_store& store,
                                   std::chrono::system_clock::time_point now);

bool is_admin(const user_info& user);
// verb: get, list, watch, create, update, patch, delete, deletecollection.
api_status authorize(const user_info& user, const std::string& verb, const std::string& group,
                     const std::string& resource, const std::string& namespace_name);

}  // namespace kp::sim::kube
