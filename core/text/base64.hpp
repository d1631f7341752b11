#pragma once
// The one base64: standard (RFC 4648, with padding), for Secret data, CSRs, kubeconfig *-data
// fields, cloud-init and Proxmox values.
#include <optional>
#include <string>
#include <string_view>

namespace kp::text {

std::string base64_encode(std::string_view bytes);
// nullopt when the text is not valid base64 (whitespace and newlines are ignored).
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace kp::text
