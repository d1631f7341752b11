#pragma once
// The one HTTP/1.1 client: keep-alive connection pools per host, TLS with verification on by
// default, timeouts on every step, a token-bucket rate limit, and streaming responses (watches).
// Asynchronous throughout: completions are callbacks on the io_context's threads, which actors
// turn into messages.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/result.hpp"
#include "protocol/transport/failure_report.hpp"
#include "protocol/transport/http_message.hpp"

namespace boost::asio {
class io_context;
}

namespace kp::transport {

struct client_options {
  std::string ca_pem;                  // trusted CAs; empty means the system's default paths
  bool insecure_skip_verify = false;   // only when explicitly asked for
  std::string client_certificate_pem;  // optional client certificate (chain) and key
  std::string client_key_pem;
  // Timeouts: zero means none.
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(10)};  // resolve+connect+TLS
  std::chrono::milliseconds request_timeout{std::chrono::seconds(60)};  // write + whole response
  std::chrono::milliseconds idle_timeout{std::chrono::seconds(90)};     // pooled connection reuse
  std::size_t max_connections_per_host = 8;                             // further requests queue
  double qps = 0;  // 0 = unlimited; otherwise a token bucket of `burst`
  int burst = 0;
  std::size_t body_limit = 512u << 20;
  // Where an exception thrown by a response or stream callback is reported (stderr if unset).
  failure_reporter on_failure;
};

// TLS handshakes a client completed: full ones verified the peer's certificate chain; resumed
// ones took up a session a full one had verified with the same peer (scheme, host and port).
struct tls_handshake_counts {
  std::size_t full = 0;
  std::size_t resumed = 0;
};

// Error codes: "connect", "tls", "timeout", "protocol", "cancelled", "closed".
using response_result = result<http_response>;
using response_callback = std::function<void(response_result)>;

// A streaming response in progress; cancel() closes its connection. Dropping the handle does
// not end the stream (the callbacks keep it alive until it ends); cancel() it.
class http_stream {
 public:
  virtual ~http_stream() = default;
  virtual void cancel() = 0;
};

struct stream_callbacks {
  // The status and headers; a non-2xx status is followed by the body in on_data and then on_end.
  std::function<void(int status, const header_list& headers)> on_head;
  // Body bytes as they arrive (chunk boundaries are not preserved).
  std::function<void(std::string_view data)> on_data;
  // The stream ended: ok when the server finished it, an error otherwise (incl. cancel()).
  std::function<void(status)> on_end;
};

class http_client {
 public:
  http_client(boost::asio::io_context& io, client_options options);
  ~http_client();
  http_client(const http_client&) = delete;
  http_client& operator=(const http_client&) = delete;

  // base_url: "https://host:port" or "http://host:port" (a path prefix is allowed and prepended).
  // The request's target is appended to it. Host, Content-Length and Connection are set here.
  void send(const std::string& base_url, http_request request, response_callback done);

  // Opens a long-lived response on a dedicated connection (not pooled); the stream's lifetime
  // is bounded only by the server, cancel() or the idle timeout between data.
  std::shared_ptr<http_stream> open_stream(const std::string& base_url, http_request request,
                                           stream_callbacks callbacks,
                                           std::chrono::milliseconds idle_timeout);

  // Closes pooled connections and fails queued requests with "cancelled"; requests in flight
  // finish, their connections are not reused. The client stays usable. The destructor also
  // cancels requests in flight and open streams.
  void close();

  // Whether the TLS settings (CA, client certificate) loaded; if not, every https request and
  // stream fails with this error (code "tls").
  status configured() const;

  // Connections currently open (pooled + busy), for metrics and tests.
  std::size_t open_connections() const;

  // Successful TLS handshakes so far, for metrics and tests. Sessions are kept per peer for the
  // client's life, so a connection after the first one to a peer resumes if the peer allows it.
  tls_handshake_counts tls_handshakes() const;

 private:
  struct impl;
  std::shared_ptr<impl> impl_;
};

}  // namespace kp::transport
