#pragma once
// Kubernetes bootstrap tokens ("abcdef.0123456789abcdef"): a new VM authenticates with one to
// request its node credential. One token per NodeClaim, short-lived.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace kp::cloudinit {

struct bootstrap_token {
  std::string id;      // [a-z0-9]{6}, public: the Secret is bootstrap-token-<id>
  std::string secret;  // [a-z0-9]{16}, a credential: never logged

  std::string token() const { return id + "." + secret; }
};

// A fresh token drawn from `random` (a uniform 32-bit source; the caller passes a CSPRNG such
// as std::random_device, tests a seeded one).
bootstrap_token generate_bootstrap_token(const std::function<std::uint32_t()>& random);

// Whether text has the shape of a bootstrap token.
bool is_bootstrap_token(std::string_view text);

}  // namespace kp::cloudinit
