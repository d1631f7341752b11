#pragma once
// The Status object the API server answers errors with (and some successes, e.g. an allowed
// eviction), and its mapping onto our typed error codes.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "protocol/kube/api_resource.hpp"

namespace kp::kube {

struct status_cause {
  std::string reason;
  std::string message;
  std::string field;
  friend bool operator==(const status_cause&, const status_cause&) = default;
};

struct api_status {
  static constexpr api_resource resource{"", "v1", "Status", "status", false};
  std::string status;  // Success, Failure
  std::string message;
  std::string reason;  // NotFound, AlreadyExists, Conflict, Invalid, Expired, TooManyRequests, ...
  std::int64_t code = 0;
  std::string details_name;
  std::string details_group;
  std::string details_kind;
  std::vector<status_cause> causes;
  std::optional<std::int64_t> retry_after_seconds;
  friend bool operator==(const api_status&, const api_status&) = default;
};

// Error codes of the client, derived from the HTTP status and the Status reason:
//   not_found (404), already_exists (409 AlreadyExists), conflict (409 Conflict),
//   invalid (422), bad_request (400), unauthorized (401), forbidden (403),
//   method_not_allowed (405), expired (410), unsupported_media_type (415),
//   blocked_by_pdb (429 on an eviction), too_many_requests (429 otherwise),
//   server_error (5xx), timeout (504 / transport), unexpected_status (anything else);
//   transport errors keep the transport's code (connect, tls, timeout, protocol, ...).
std::string error_code_for(int http_status, const std::string& reason, bool eviction);

// An error value for a non-2xx answer: the code above, the Status message (or the body's
// beginning when it is not a Status).
kp::error api_error(int http_status, const std::string& body, bool eviction = false);

}  // namespace kp::kube
