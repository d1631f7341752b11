#pragma once
// Text from a guest-agent join (Proxmox errors, the command's output) made safe for an error
// message: the join command carries a bootstrap token, and a user's script may echo it.
#include <string>

namespace kp::actors::region {

// Replaces every occurrence of `command` with "<join command>" and every bootstrap-token-shaped
// word ([a-z0-9]{6}.[a-z0-9]{16}) with "<token>", then cuts the text to `max_size` characters.
std::string redact_join_text(std::string text, const std::string& command,
                             std::size_t max_size = 300);

}  // namespace kp::actors::region
