#pragma once
// Reads a file a setting names (clusters file, NODE_SETTING_FILE, kubeconfig, certificates),
// bounded: a path to something endless (/dev/zero) or huge is refused, not read into memory.
#include <cstddef>
#include <string>

#include "core/result.hpp"

namespace kp::config {

inline constexpr std::size_t max_text_file_bytes = 16u << 20;

// The whole file; "unreadable" (with the system's reason) or "too_large" (over max_bytes).
result<std::string> read_text_file(const std::string& path,
                                   std::size_t max_bytes = max_text_file_bytes);

}  // namespace kp::config
