#pragma once
// Test controls under /sim/v1/ (admin only): drop every watch, make the next watch or continued
// list answer 410 Expired, shrink the watch history, flip a node condition, switch simulated
// controllers, bulk-load objects (POST /sim/v1/objects {"items": [...]}) and read counters.
#include <boost/json/object.hpp>
#include <map>
#include <string>

#include "sim/kube/api_error.hpp"
#include "sim/kube/auth.hpp"
#include "sim/kube/operations.hpp"
#include "sim/kube/watch_hub.hpp"

namespace kp::sim::kube {

struct control_targets {
  operations& ops;
  watch_hub& hub;
  std::map<std::string, bool>& enabled;
  auth_settings& auth;
  std::uint64_t requests_served = 0;
  std::map<std::string, std::uint64_t> requests_by_method;
};

api_result<boost::json::object> handle_test_control(control_targets& t, const std::string& method,
                                                    std::string_view path,
                                                    const boost::json::value& body);

}  // namespace kp::sim::kube
