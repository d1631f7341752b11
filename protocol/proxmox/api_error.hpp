#pragma once
// Proxmox's error replies turned into typed kp::error values. Proxmox puts the message in the
// HTTP reason phrase (and, since PVE 8.3, also in the body's "message"), parameter errors in the
// body's "errors" map, and uses pseudo-statuses 595/596 when the node it proxies to is offline.
//
// Codes: "invalid_parameter" (400; the message lists every parameter error), "conflict" (the
// thing already exists, the VM is running when it must not be, or vice versa), "locked" (VM lock
// or lock-file timeout), "not_found", "unauthorized" (401), "forbidden" (403 and root-only keys),
// "host_offline" (595/596/597/599), "unavailable" (502/503/504), "not_implemented" (501),
// "agent_unavailable" (no or not running guest agent), "server_error" (other 5xx),
// "bad_request" (other 4xx). Transport failures: "timeout", "transport", "cancelled".
// Replies that are not Proxmox's envelope: "invalid_reply".
#include <map>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace kp::proxmox {

// `message` is the reason phrase or body message; `parameter_errors` the body's "errors".
kp::error api_error(int status, std::string_view message,
                    const std::map<std::string, std::string>& parameter_errors);

// A failure of the HTTP exchange itself (transport codes connect, tls, timeout, protocol,
// cancelled, closed): "timeout" and "cancelled" (the client was closed) stay, everything else
// becomes "transport".
kp::error transport_error(const kp::error& cause);

// Whether retrying the same request later may succeed (used by the task waiter and callers).
bool is_transient(const kp::error& e);

}  // namespace kp::proxmox
