#pragma once
// Decodes one HTTP exchange with the Proxmox API into the envelope's `data` value or a typed
// error. Internal to protocol/proxmox (it exposes Boost.JSON); callers use client.hpp.
#include <boost/json/value.hpp>

#include "core/result.hpp"
#include "protocol/transport/http_client.hpp"

namespace kp::proxmox {

// 200 with {"data": ...} gives the data (null included). Anything else is an error: the status
// mapped by api_error() (message from the body's "message" or the first line of a non-JSON
// body), or "invalid_reply" for a 2xx whose body is not a JSON object with "data".
result<boost::json::value> decode_reply(const transport::response_result& outcome);

}  // namespace kp::proxmox
