#pragma once
// Plain HTTP request/response values shared by the client and the server, so callers never see
// Beast types. Header names compare case-insensitively.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kp::transport {

using header_list = std::vector<std::pair<std::string, std::string>>;

// Returns the first value of a header, or "" when absent (case-insensitive name).
std::string_view find_header(const header_list& headers, std::string_view name);

// Who is on the other end of a TLS connection that presented a verified client certificate.
struct peer_identity {
  std::string common_name;                 // CN of the client certificate, "" if none
  std::vector<std::string> organizations;  // O entries (Kubernetes groups)
};

struct http_request {
  std::string method = "GET";
  std::string target = "/";  // path and query, e.g. "/api/v1/pods?watch=1"
  header_list headers;
  std::string body;
  peer_identity peer;  // filled by the server; ignored by the client

  std::string_view header(std::string_view name) const { return find_header(headers, name); }
  // Path without the query string, and the raw query string ("" if none).
  std::string_view path() const;
  std::string_view query() const;
};

struct http_response {
  int status = 200;
  // The status line's reason phrase; empty means the standard one for the status. Proxmox puts
  // its error message here, so both the simulator and the client carry it.
  std::string reason;
  header_list headers;
  std::string body;

  std::string_view header(std::string_view name) const { return find_header(headers, name); }
};

}  // namespace kp::transport
