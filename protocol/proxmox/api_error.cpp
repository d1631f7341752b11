#include "protocol/proxmox/api_error.hpp"

#include <algorithm>
#include <cctype>

namespace kp::proxmox {

namespace {

bool contains(std::string_view text, std::string_view needle) {
  auto it = std::search(text.begin(), text.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

// Proxmox reports most refusals as 500 with a sentence; these are the sentences the product
// must tell apart (from qemu-server and pve-common, see apis.md A1/A5).
std::string classify_500(std::string_view message) {
  if (contains(message, "is locked") || contains(message, "can't lock file")) return "locked";
  if (contains(message, "guest agent")) return "agent_unavailable";
  if (contains(message, "only root can") || contains(message, "permission check failed")) {
    return "forbidden";
  }
  if (contains(message, "does not exist") || contains(message, "no such") ||
      contains(message, "hostname lookup")) {  // an unknown node name
    return "not_found";
  }
  if (contains(message, "already exists") || contains(message, "is running") ||
      contains(message, "already running") || contains(message, "is not running") ||
      contains(message, "linked clone") || contains(message, "base volume")) {
    return "conflict";
  }
  return "server_error";
}

}  // namespace

kp::error api_error(int status, std::string_view message,
                    const std::map<std::string, std::string>& parameter_errors) {
  std::string code;
  bool any_exists = false;
  bool any_missing = false;
  for (const auto& [name, why] : parameter_errors) {
    any_exists |= contains(why, "already exists");
    any_missing |= contains(why, "no such");
  }
  if (status == 595 || status == 596 || status == 597 || status == 599) {
    code = "host_offline";
  } else if (status == 401) {
    code = "unauthorized";
  } else if (status == 403) {
    code = "forbidden";
  } else if (status == 404) {
    code = "not_found";
  } else if (status == 400) {
    code = any_exists ? "conflict" : any_missing ? "not_found" : "invalid_parameter";
  } else if (status == 501) {
    code = "not_implemented";
  } else if (status == 502 || status == 503 || status == 504) {
    code = "unavailable";
  } else if (status >= 500) {
    code = classify_500(message);
  } else {
    code = "bad_request";
  }
  std::string text = std::to_string(status);
  if (!message.empty()) {
    text += " ";
    text += message.substr(0, 1000);
  }
  if (!parameter_errors.empty()) {
    text += " (";
    bool first = true;
    for (const auto& [name, why] : parameter_errors) {
      if (!first) text += "; ";
      first = false;
      text += name + ": " + why.substr(0, 500);
    }
    text += ")";
  }
  return make_error(std::move(code), std::move(text));
}

kp::error transport_error(const kp::error& cause) {
  if (cause.code == "timeout") return make_error("timeout", cause.message);
  if (cause.code == "cancelled") return make_error("cancelled", cause.message);
  return make_error("transport", cause.code + ": " + cause.message);
}

bool is_transient(const kp::error& e) {
  return e.code == "timeout" || e.code == "transport" || e.code == "host_offline" ||
         e.code == "unavailable" || e.code == "locked";
}

}  // namespace kp::proxmox
