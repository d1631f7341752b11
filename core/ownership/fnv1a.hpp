#pragma once
// FNV-1a, 64 bits: a short, stable fingerprint of a text for names that must not change between
// versions (image file names, the cluster tag in ISO names). Not for security.
#include <cstdint>
#include <string_view>

namespace kp::ownership {

constexpr std::uint64_t fnv1a64(std::string_view text) {
  std::uint64_t h = 14695981039346656037ull;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace kp::ownership
