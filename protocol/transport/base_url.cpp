#include "protocol/transport/base_url.hpp"

#include <string_view>

namespace kp::transport::detail {

result<parsed_url> parse_base_url(const std::string& base_url) {
  parsed_url url;
  std::string_view rest = base_url;
  if (rest.starts_with("https://")) {
    url.tls = true;
    rest.remove_prefix(8);
  } else if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else {
    return make_error("connect", "base URL '" + base_url + "' must start with http:// or https://");
  }
  auto slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) url.prefix = std::string(rest.substr(slash));
  while (!url.prefix.empty() && url.prefix.back() == '/') url.prefix.pop_back();
  if (auto at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  std::string_view host = authority, port;
  if (authority.starts_with('[')) {
    auto close = authority.find(']');
    if (close == std::string_view::npos)
      return make_error("connect", "bad IPv6 host in '" + base_url + "'");
    host = authority.substr(1, close - 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':')
      port = authority.substr(close + 2);
  } else if (auto colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty()) return make_error("connect", "no host in base URL '" + base_url + "'");
  url.host = std::string(host);
  url.port = port.empty() ? (url.tls ? "443" : "80") : std::string(port);
  url.host_header = std::string(authority);
  return url;
}

}  // namespace kp::transport::detail
