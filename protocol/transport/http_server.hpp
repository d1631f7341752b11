#pragma once
// The one HTTP/1.1 server acceptor: plain or TLS (optionally asking for client certificates),
// one session per connection, keep-alive, timeouts, graceful stop. Used by both simulators and
// the controller's metrics and health endpoints.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"
#include "protocol/transport/failure_report.hpp"
#include "protocol/transport/http_message.hpp"

namespace boost::asio {
class io_context;
}

namespace kp::transport {

// The reply channel of one request. Thread-safe: any method may be called from any thread, at
// any later time (asynchronous replies), and work is posted onto the connection's executor.
// Either respond() once, or start_stream() then write()* then finish() (chunked encoding, used for
// watches and long-running streams), or respond_pulled() once.
class http_exchange {
 public:
  // The next piece of a pulled reply's body; empty when the body is complete.
  using body_pieces = std::function<std::string()>;

  virtual ~http_exchange() = default;
  virtual void respond(http_response response) = 0;
  // A reply whose body is made a piece at a time as the client takes it (chunked encoding): the
  // server asks `next` for a piece only once the previous one was written, so a body of any size
  // holds one piece at a time (a /metrics text of 100,000 pod series). `next` runs on the
  // server's io thread: it must only read what no one changes (an immutable snapshot). A HEAD
  // request gets the status and headers only; `next` is never called for it.
  virtual void respond_pulled(int status, header_list headers, body_pieces next) = 0;
  virtual void start_stream(int status, header_list headers) = 0;
  virtual void write(std::string chunk) = 0;
  virtual void finish() = 0;
  // False once the client has gone or the server is stopping.
  virtual bool open() const = 0;
  // Called once (on the io thread) when the connection closes; streams use it to unregister.
  virtual void on_close(std::function<void()> callback) = 0;
};

using request_handler =
    std::function<void(http_request request, std::shared_ptr<http_exchange> exchange)>;

struct server_tls {
  std::string certificate_chain_pem;
  std::string private_key_pem;
  std::string client_ca_pem;  // when set, clients may present certificates signed by this CA
};

struct server_options {
  std::string address = "127.0.0.1";
  std::uint16_t port = 0;  // 0 picks a free port
  std::optional<server_tls> tls;
  // Timeouts: zero means none.
  std::chrono::milliseconds idle_timeout{std::chrono::seconds(60)};   // between requests
  std::chrono::milliseconds read_timeout{std::chrono::seconds(30)};   // a request, once begun
  std::chrono::milliseconds write_timeout{std::chrono::seconds(30)};  // each write to the client
  // After stop(), sessions still busy are closed at the latest after this long.
  std::chrono::milliseconds stop_grace{std::chrono::seconds(5)};
  // Largest request body (413 beyond); also the most stream data buffered for a slow client
  // before its connection is dropped.
  std::size_t body_limit = 256u << 20;
  // When set: the most stream data buffered for a slow client instead of body_limit (a server
  // with small request bodies may still stream large watch replays), and the reply to a body
  // over the limit instead of a plain-text 413 (an API answering in its own error shape).
  std::optional<std::size_t> stream_buffer_limit;
  std::optional<http_response> body_limit_reply;
  // Most connections open at once; at the cap the server stops accepting (new clients wait in
  // the listen backlog) until one closes. Zero means no cap.
  std::size_t max_connections = 0;
  // A request's line and headers must be complete this long after their first byte arrived
  // (the wait for that byte is idle_timeout); a slower client is disconnected.
  std::chrono::milliseconds header_timeout{std::chrono::seconds(10)};
  // Largest request line plus headers (431 beyond).
  std::size_t header_limit = 64u << 10;
  // Whether a request body may come chunked. A server whose requests carry at most a small
  // body (metrics, health) answers 411 instead: it never parses a chunked body at all, which
  // also keeps it clear of Beast 1.74's false assertion on a split last chunk (Beast #2861).
  bool chunked_bodies = true;
  // Where an exception thrown by the request handler is reported, besides the 500 it answers
  // (stderr if unset).
  failure_reporter on_failure;
};

// What the server makes of one request's bytes, without a socket: the parser, limits and
// conversion a connection uses, for the fuzz target and tests. `refusal` is the status the
// server would answer a request it cannot parse (400, 411, 413, 431); `complete` is false when the
// bytes end before the request does.
struct parsed_request {
  int refusal = 0;
  bool complete = false;
  http_request request;
};
parsed_request parse_request_bytes(std::string_view bytes, const server_options& options);

class http_server {
 public:
  // The handler runs on the io_context's threads (on the connection's strand). A handler that
  // throws gets a 500; one that drops the exchange without replying gets a 500 too.
  http_server(boost::asio::io_context& io, server_options options, request_handler handler);
  ~http_server();
  http_server(const http_server&) = delete;
  http_server& operator=(const http_server&) = delete;

  // Binds and starts accepting. Fails with a clear message (e.g. address in use).
  status start();
  // The bound port (after start()).
  std::uint16_t port() const;
  // Stops accepting, closes idle connections, ends streams; in-flight replies may finish (within
  // stop_grace). Returns without waiting for sessions; safe to call twice and from any thread.
  void stop();
  // Connections currently open, for tests and metrics.
  std::size_t connections() const;
  // Connections accepted since start(), for tests (keep-alive reuse) and metrics.
  std::uint64_t accepted_connections() const;

 private:
  struct impl;
  std::shared_ptr<impl> impl_;
};

}  // namespace kp::transport
