#pragma once
// A blocking HTTP client for one server (kube-sim or pve-sim): the lab and the tests ask a
// question and wait for its answer. It runs the project's transport on its own io thread.
#include <boost/json/value.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "core/result.hpp"

namespace kp::lab {

struct http_reply {
  int status = 0;
  std::string body;
  bool ok() const { return status >= 200 && status < 300; }
  // The body parsed as JSON (null when it is not JSON).
  boost::json::value json() const;
};

class http_endpoint {
 public:
  // base_url "https://127.0.0.1:PORT"; ca_pem trusted; authorization is the whole Authorization
  // header value ("Bearer ..." or "PVEAPIToken=..."), or empty.
  http_endpoint(std::string base_url, std::string ca_pem, std::string authorization);
  ~http_endpoint();
  http_endpoint(const http_endpoint&) = delete;
  http_endpoint& operator=(const http_endpoint&) = delete;

  // A transport failure (connect, TLS, timeout) is an error; any HTTP status is a reply.
  result<http_reply> call(const std::string& method, const std::string& target,
                          const std::string& body = "",
                          const std::string& content_type = "application/json",
                          std::chrono::milliseconds timeout = std::chrono::seconds(20));

  const std::string& base_url() const { return base_url_; }

 private:
  struct impl;
  std::string base_url_;
  std::unique_ptr<impl> impl_;
};

}  // namespace kp::lab
