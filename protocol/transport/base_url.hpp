#pragma once
// Internal to kp_transport: a client's base URL taken apart ("https://host:port/prefix"). Not for
// use outside this folder.
#include <string>

#include "core/result.hpp"

namespace kp::transport::detail {

struct parsed_url {
  bool tls = false;
  std::string host;         // without IPv6 brackets: what TLS verifies and DNS resolves
  std::string host_header;  // as it goes into the Host header
  std::string port;
  std::string prefix;  // path prefix without a trailing '/'
  std::string pool_key() const { return (tls ? "https://" : "http://") + host + ":" + port; }
};

// Code "connect" when the URL has no http(s) scheme or no host.
result<parsed_url> parse_base_url(const std::string& base_url);

}  // namespace kp::transport::detail
