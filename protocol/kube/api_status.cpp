#include "protocol/kube/api_status.hpp"

#include "protocol/kube/codec.hpp"

namespace kp::kube {

std::string error_code_for(int http_status, const std::string& reason, bool eviction) {
  switch (http_status) {
    case 400:
      return "bad_request";
    case 401:
      return "unauthorized";
    case 403:
      return "forbidden";
    case 404:
      return "not_found";
    case 405:
      return "method_not_allowed";
    case 409:
      return reason == "AlreadyExists" ? "already_exists" : "conflict";
    case 410:
      return "expired";
    case 415:
      return "unsupported_media_type";
    case 422:
      return "invalid";
    case 429:
      return eviction ? "blocked_by_pdb" : "too_many_requests";
    case 504:
      return "timeout";
    default:
      break;
  }
  if (http_status >= 500) return "server_error";
  return "unexpected_status";
}

kp::error api_error(int http_status, const std::string& body, bool eviction) {
  auto status = decode<api_status>(body);
  std::string reason;
  std::string message;
  if (status.ok() && (!status->message.empty() || !status->reason.empty())) {
    reason = status->reason;
    message = status->message;
    // Eviction refusals name the budget in the first cause; keep it for the person reading.
    for (const auto& cause : status->causes) {
      if (!cause.message.empty()) {
        message += " (" + cause.message + ")";
        break;
      }
    }
  } else {
    message = body.substr(0, 200);
  }
  std::string text = "HTTP " + std::to_string(http_status);
  if (!reason.empty()) text += " " + reason;
  if (!message.empty()) text += ": " + message;
  return kp::make_error(error_code_for(http_status, reason, eviction), text);
}

}  // namespace kp::kube
