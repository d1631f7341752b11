#include "protocol/transport/http_client.hpp"

#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <sys/socket.h>

#include <array>
#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cerrno>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "protocol/transport/base_url.hpp"
#include "protocol/transport/tls_context.hpp"
#include "protocol/transport/tls_session_cache.hpp"

namespace kp::transport {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
using error_code = boost::system::error_code;
using steady = std::chrono::steady_clock;
using detail::parse_base_url;
using detail::parsed_url;

namespace {

bool is_ip_literal(const std::string& host) {
  error_code ec;
  net::ip::make_address(host, ec);
  return !ec;
}

bool is_idempotent(http::verb v) {
  switch (v) {
    case http::verb::get:
    case http::verb::head:
    case http::verb::options:
    case http::verb::trace:
    case http::verb::put:
    case http::verb::delete_:
      return true;
    default:
      return false;
  }
}

// The peer closed (or reset) the connection.
bool is_closed_error(const error_code& ec) {
  return ec == http::error::end_of_stream || ec == net::error::eof ||
         ec == net::error::connection_reset || ec == net::error::broken_pipe ||
         ec == net::error::connection_aborted || ec == ssl::error::stream_truncated ||
         ec == http::error::partial_message;
}

http_response to_response(http::response<http::string_body>&& message) {
  http_response r;
  r.status = static_cast<int>(message.result_int());
  r.reason = std::string(message.reason());
  for (const auto& field : message)
    r.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  r.body = std::move(message.body());
  return r;
}

// Runs the caller's callback. One that throws must not leave a connection half-updated, and its
// exception is reported to the client's owner rather than lost.
template <class F, class... Args>
void invoke_guarded(const failure_reporter& on_failure, std::string_view where, F& f,
                    Args&&... args) {
  if (!f) return;
  try {
    f(std::forward<Args>(args)...);
  } catch (...) {
    report_failure(on_failure, where, std::current_exception());
  }
}

std::string millis(std::chrono::milliseconds d) {
  return std::to_string(d.count()) + " ms";
}

}  // namespace

// Settings and bookkeeping that connections share with the client; outlives it while
// connections finish.
struct client_shared {
  client_options options;
  std::shared_ptr<ssl::context> tls;
  std::optional<kp::error> tls_error;
  detail::tls_session_cache sessions;  // with `tls`: the context that verified them
  std::atomic<std::size_t> full_handshakes{0};
  std::atomic<std::size_t> resumed_handshakes{0};
  std::atomic<std::size_t> open{0};
  std::mutex mutex;
  std::unordered_map<const void*, std::function<void()>> cancellers;  // every live connection
};

namespace {

// One request on a connection: the message to send and who waits for the answer.
struct request_job {
  parsed_url url;
  http::request<http::string_body> message;
  bool idempotent = false;
  bool retried = false;
  response_callback done;
};

// How a request on a connection ended.
struct outcome {
  std::optional<response_result> response;  // empty only when `stale`
  bool reusable = false;                    // the connection may serve another request
  bool stale = false;  // a kept-alive connection the server had closed; nothing was answered
  bool nothing_written = false;
  bool untouched = false;  // found closed before sending: the request never left
};

class connection {
 public:
  virtual ~connection() = default;
  // Resolve, connect and (for https) handshake, within connect_timeout.
  virtual void connect(std::function<void(status)> done) = 0;
  // Write the request and read the whole response, within request_timeout.
  virtual void exchange(std::shared_ptr<request_job> job, std::function<void(outcome)> done) = 0;
  // Connect, send, then deliver the response as a stream (the connection is not reused).
  virtual void stream(http::request<http::string_body> message, stream_callbacks callbacks,
                      std::chrono::milliseconds idle_timeout) = 0;
  // Closes the connection from any thread; a pending operation ends with "cancelled".
  virtual void cancel() = 0;

  std::string key;
  steady::time_point idle_since{};
  std::uint64_t generation = 0;  // pool generation at creation; close() retires older ones
};

template <class Stream>
class connection_impl final : public connection,
                              public std::enable_shared_from_this<connection_impl<Stream>> {
  static constexpr bool is_tls = !std::is_same_v<Stream, beast::tcp_stream>;

 public:
  template <class... Args>
  connection_impl(net::io_context& io, std::shared_ptr<client_shared> shared, parsed_url url,
                  Args&... extra)
      : shared_(std::move(shared)),
        url_(std::move(url)),
        stream_(net::make_strand(io), extra...),
        resolver_(stream_.get_executor()),
        timer_(stream_.get_executor()) {
    shared_->open.fetch_add(1);
  }

  ~connection_impl() override {
    shared_->open.fetch_sub(1);
    std::lock_guard lock(shared_->mutex);
    shared_->cancellers.erase(this);
  }

  // Lets the client cancel this connection whatever it is doing (destructor of the client).
  void register_canceller() {
    std::lock_guard lock(shared_->mutex);
    shared_->cancellers.emplace(this, [weak = this->weak_from_this()] {
      if (auto self = weak.lock()) self->cancel();
    });
  }

  void connect(std::function<void(status)> done) override {
    net::dispatch(stream_.get_executor(),
                  [self = this->shared_from_this(), done = std::move(done)]() mutable {
                    self->do_connect(std::move(done));
                  });
  }

  void exchange(std::shared_ptr<request_job> job, std::function<void(outcome)> done) override {
    net::dispatch(stream_.get_executor(), [self = this->shared_from_this(), job = std::move(job),
                                           done = std::move(done)]() mutable {
      self->do_exchange(std::move(job), std::move(done));
    });
  }

  void stream(http::request<http::string_body> message, stream_callbacks callbacks,
              std::chrono::milliseconds idle_timeout) override {
    net::dispatch(stream_.get_executor(), [self = this->shared_from_this(), m = std::move(message),
                                           cb = std::move(callbacks), idle_timeout]() mutable {
      self->stream_message_ = std::move(m);
      self->stream_callbacks_ = std::move(cb);
      self->stream_idle_ = idle_timeout;
      self->do_stream();
    });
  }

  void cancel() override {
    net::post(stream_.get_executor(), [self = this->shared_from_this()] {
      self->cancelled_ = true;
      self->shut();
    });
  }

 private:
  auto& lowest() { return beast::get_lowest_layer(stream_); }

  void shut() {
    error_code ignored;
    resolver_.cancel();
    lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
    lowest().close();
    ++timer_gen_;
    timer_.cancel();
  }

  // ---- one deadline at a time; on expiry the socket closes and the pending step fails
  void arm(std::chrono::milliseconds d) {
    timed_out_ = false;
    if (d <= std::chrono::milliseconds::zero()) return disarm();  // zero means no deadline
    const auto gen = ++timer_gen_;
    timer_.expires_after(d);
    timer_.async_wait([weak = this->weak_from_this(), gen](error_code ec) {
      auto self = weak.lock();
      if (!self || ec || self->timer_gen_ != gen) return;
      self->timed_out_ = true;
      self->shut();
    });
  }
  void disarm() {
    ++timer_gen_;
    timer_.cancel();
  }

  // ---- connect
  void do_connect(std::function<void(status)> done) {
    if (cancelled_) return done(make_error("cancelled", "request cancelled"));
    connect_done_ = std::move(done);
    arm(shared_->options.connect_timeout);
    resolver_.async_resolve(
        url_.host, url_.port,
        [self = this->shared_from_this()](error_code ec, tcp::resolver::results_type results) {
          self->on_resolve(ec, std::move(results));
        });
  }

  void connect_failed(const std::string& code, const std::string& what) {
    disarm();
    auto done = std::move(connect_done_);
    shut();
    if (cancelled_) return done(make_error("cancelled", "request cancelled"));
    if (timed_out_)
      return done(make_error("connect", "connecting to " + url_.pool_key() + " timed out after " +
                                            millis(shared_->options.connect_timeout)));
    done(make_error(code, what));
  }

  void on_resolve(error_code ec, tcp::resolver::results_type results) {
    if (ec) return connect_failed("connect", "cannot resolve " + url_.host + ": " + ec.message());
    lowest().async_connect(results,
                           [self = this->shared_from_this()](error_code cec, const tcp::endpoint&) {
                             self->on_connect(cec);
                           });
  }

  void on_connect(error_code ec) {
    if (ec)
      return connect_failed("connect",
                            "cannot connect to " + url_.pool_key() + ": " + ec.message());
    error_code ignored;
    lowest().socket().set_option(tcp::no_delay(true), ignored);
    if constexpr (is_tls) {
      if (!is_ip_literal(url_.host)) {
        // SNI carries DNS names only (RFC 6066).
        SSL_set_tlsext_host_name(stream_.native_handle(), url_.host.c_str());
      }
      if (!shared_->options.insecure_skip_verify)
        stream_.set_verify_callback(ssl::host_name_verification(url_.host));
      shared_->sessions.offer(key, stream_.native_handle());
      stream_.async_handshake(
          ssl::stream_base::client,
          [self = this->shared_from_this()](error_code hec) { self->on_handshake(hec); });
    } else {
      disarm();
      std::exchange(connect_done_, nullptr)(status{});
    }
  }

  void on_handshake(error_code ec) {
    if constexpr (is_tls) {
      if (ec) {
        std::string why = ec.message();
        const long verify = SSL_get_verify_result(stream_.native_handle());
        if (verify != X509_V_OK)
          why += std::string(" (") + X509_verify_cert_error_string(verify) + ")";
        shared_->sessions.forget(key);
        return connect_failed("tls", "TLS handshake with " + url_.pool_key() + " failed: " + why);
      }
    }
    (void)ec;
    if constexpr (is_tls) {
      auto& count = SSL_session_reused(stream_.native_handle()) == 1 ? shared_->resumed_handshakes
                                                                     : shared_->full_handshakes;
      count.fetch_add(1);
    }
    disarm();
    std::exchange(connect_done_, nullptr)(status{});
  }

  // A reply arrived, so the peer's session tickets (TLS 1.3 sends them after the handshake) did.
  void keep_session() {
    if constexpr (is_tls) {
      if (!session_kept_) session_kept_ = shared_->sessions.keep(key, stream_.native_handle());
    }
  }

  // ---- request/response on a (possibly reused) connection
  // A kept-alive connection the server has closed shows EOF (or stray bytes such as a TLS
  // close_notify) without blocking; found here, the request goes elsewhere untouched.
  bool peer_closed() {
    auto& socket = lowest().socket();
    if (!socket.is_open()) return true;
    char byte;
    const auto n = ::recv(socket.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n >= 0) return true;
    return !(errno == EAGAIN || errno == EWOULDBLOCK);
  }

  void do_exchange(std::shared_ptr<request_job> job, std::function<void(outcome)> done) {
    if (cancelled_) {
      outcome o;
      o.response = make_error("cancelled", "request cancelled");
      return done(std::move(o));
    }
    if (used_ && peer_closed()) {
      outcome o;
      o.stale = true;
      o.nothing_written = true;
      o.untouched = true;
      return done(std::move(o));
    }
    job_ = std::move(job);
    exchange_done_ = std::move(done);
    arm(shared_->options.request_timeout);
    http::async_write(
        stream_, job_->message,
        [self = this->shared_from_this()](error_code ec, std::size_t n) { self->on_write(ec, n); });
  }

  void exchange_failed(error_code ec, bool got_response_bytes, bool nothing_written) {
    disarm();
    outcome o;
    const std::string what = std::string(job_->message.method_string()) + " " + url_.pool_key() +
                             std::string(job_->message.target());
    if (cancelled_) {
      o.response = make_error("cancelled", what + ": request cancelled");
    } else if (timed_out_) {
      o.response = make_error("timeout", what + ": no complete response within " +
                                             millis(shared_->options.request_timeout));
    } else if (is_closed_error(ec) && !got_response_bytes) {
      o.stale = used_;
      o.nothing_written = nothing_written;
      o.response =
          make_error("closed", what + ": the server closed the connection: " + ec.message());
    } else if (ec == http::error::body_limit) {
      o.response =
          make_error("protocol", what + ": response body exceeds " +
                                     std::to_string(shared_->options.body_limit) + " bytes");
    } else if (ec.category() == error_code(http::error::bad_target).category()) {
      o.response = make_error("protocol", what + ": malformed response: " + ec.message());
    } else {
      o.response = make_error("closed", what + ": " + ec.message());
    }
    shut();
    job_.reset();
    std::exchange(exchange_done_, nullptr)(std::move(o));
  }

  void on_write(error_code ec, std::size_t written) {
    if (ec) return exchange_failed(ec, false, written == 0);
    parser_.emplace();
    parser_->body_limit(shared_->options.body_limit);
    parser_->header_limit(256 * 1024);
    if (job_->message.method() == http::verb::head) parser_->skip(true);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = this->shared_from_this()](error_code rec, std::size_t) { self->on_read(rec); });
  }

  void on_read(error_code ec) {
    if (ec) return exchange_failed(ec, parser_->got_some(), false);
    disarm();
    auto message = parser_->release();
    parser_.reset();
    used_ = true;
    keep_session();
    outcome o;
    // Left-over bytes after a complete response mean the framing is off: do not reuse.
    o.reusable = message.keep_alive() && buffer_.size() == 0 && !cancelled_;
    o.response = to_response(std::move(message));
    if (!o.reusable) shut();
    job_.reset();
    std::exchange(exchange_done_, nullptr)(std::move(o));
  }

  // ---- streaming response
  void do_stream() {
    if (cancelled_) return end_stream(make_error("cancelled", "stream cancelled"));
    do_connect([self = this->shared_from_this()](status s) {
      if (!s) return self->end_stream(s.error());
      self->arm(self->shared_->options.request_timeout);
      http::async_write(self->stream_, self->stream_message_,
                        [self](error_code ec, std::size_t) { self->on_stream_written(ec); });
    });
  }

  kp::error stream_error(error_code ec, const std::string& phase) {
    const std::string what = "stream " + url_.pool_key() + std::string(stream_message_.target());
    if (cancelled_) return make_error("cancelled", what + ": cancelled");
    if (timed_out_)
      return make_error("timeout", what + ": no data within the " + phase + " timeout");
    if (ec.category() == error_code(http::error::bad_target).category() && !is_closed_error(ec))
      return make_error("protocol", what + ": " + ec.message());
    return make_error("closed", what + ": " + ec.message());
  }

  void on_stream_written(error_code ec) {
    if (ec) return end_stream(stream_error(ec, "request"));
    sparser_.emplace();
    sparser_->body_limit(boost::none);  // a watch has no length limit
    sparser_->header_limit(256 * 1024);
    http::async_read_header(stream_, buffer_, *sparser_,
                            [self = this->shared_from_this()](error_code rec, std::size_t) {
                              self->on_stream_header(rec);
                            });
  }

  void on_stream_header(error_code ec) {
    if (ec) return end_stream(stream_error(ec, "request"));
    disarm();
    keep_session();
    auto& head = sparser_->get();
    header_list headers;
    for (const auto& field : head)
      headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    head_delivered_ = true;
    invoke_guarded(shared_->options.on_failure, "http client: stream on_head callback",
                   stream_callbacks_.on_head, static_cast<int>(head.result_int()), headers);
    if (sparser_->is_done()) return end_stream(status{});
    stream_read();
  }

  void stream_read() {
    if (cancelled_) return end_stream(make_error("cancelled", "stream cancelled"));
    arm(stream_idle_);
    auto& body = sparser_->get().body();
    body.data = chunk_.data();
    body.size = chunk_.size();
    http::async_read_some(stream_, buffer_, *sparser_,
                          [self = this->shared_from_this()](error_code ec, std::size_t) {
                            self->on_stream_data(ec);
                          });
  }

  void on_stream_data(error_code ec) {
    if (ec == http::error::need_buffer) ec = {};
    const std::size_t got = chunk_.size() - sparser_->get().body().size;
    if (got > 0 && !ended_)
      invoke_guarded(shared_->options.on_failure, "http client: stream on_data callback",
                     stream_callbacks_.on_data, std::string_view(chunk_.data(), got));
    if (ec) return end_stream(stream_error(ec, "idle"));
    if (sparser_->is_done()) return end_stream(status{});
    stream_read();
  }

  void end_stream(status s) {
    if (ended_) return;
    ended_ = true;
    disarm();
    shut();
    invoke_guarded(shared_->options.on_failure, "http client: stream on_end callback",
                   stream_callbacks_.on_end, std::move(s));
    stream_callbacks_ = {};  // release what the callbacks hold
  }

  std::shared_ptr<client_shared> shared_;
  parsed_url url_;
  Stream stream_;
  tcp::resolver resolver_;
  net::steady_timer timer_;
  std::uint64_t timer_gen_ = 0;
  bool timed_out_ = false;
  bool cancelled_ = false;
  bool used_ = false;  // served a request before: failures may mean the server closed it idle
  bool session_kept_ = false;
  beast::flat_buffer buffer_;
  std::function<void(status)> connect_done_;
  std::shared_ptr<request_job> job_;
  std::function<void(outcome)> exchange_done_;
  std::optional<http::response_parser<http::string_body>> parser_;
  // streaming
  http::request<http::string_body> stream_message_;
  stream_callbacks stream_callbacks_;
  std::chrono::milliseconds stream_idle_{};
  std::optional<http::response_parser<http::buffer_body>> sparser_;
  std::array<char, 16 * 1024> chunk_;
  bool head_delivered_ = false;
  bool ended_ = false;
};

class stream_handle final : public http_stream {
 public:
  explicit stream_handle(std::shared_ptr<connection> c) : connection_(std::move(c)) {}
  void cancel() override {
    if (auto c = connection_.lock()) c->cancel();
  }

 private:
  std::weak_ptr<connection> connection_;
};

struct host_pool {
  std::vector<std::shared_ptr<connection>> idle;  // most recently used last
  std::size_t total = 0;                          // idle + busy + connecting
  std::deque<std::shared_ptr<request_job>> waiting;
};

}  // namespace

struct http_client::impl : std::enable_shared_from_this<http_client::impl> {
  impl(net::io_context& io_context, client_options options) : io(io_context) {
    shared = std::make_shared<client_shared>();
    shared->options = std::move(options);
    auto& o = shared->options;
    if (o.max_connections_per_host == 0) o.max_connections_per_host = 1;
    tokens = o.burst > 0 ? o.burst : 1;
    auto ctx = detail::make_client_context(o);
    if (ctx) {
      shared->tls = std::move(*ctx);
    } else {
      shared->tls_error = ctx.error();
    }
  }

  net::io_context& io;
  std::shared_ptr<client_shared> shared;

  std::mutex mutex;  // guards everything below
  std::map<std::string, host_pool> pools;
  std::uint64_t generation = 0;
  bool destroyed = false;
  double tokens = 0;
  steady::time_point last_refill = steady::now();

  // ---- rate limit: a token bucket that hands out future slots, so waiters keep their order
  steady::duration reserve_slot() {
    const auto& o = shared->options;
    if (o.qps <= 0) return steady::duration::zero();
    std::lock_guard lock(mutex);
    const auto now = steady::now();
    const double burst = o.burst > 0 ? o.burst : 1;
    tokens =
        std::min(burst, tokens + std::chrono::duration<double>(now - last_refill).count() * o.qps);
    last_refill = now;
    tokens -= 1;
    if (tokens >= 0) return steady::duration::zero();
    return std::chrono::duration_cast<steady::duration>(
        std::chrono::duration<double>(-tokens / o.qps));
  }

  template <class F>
  void after_rate_limit(F&& go) {
    const auto wait = reserve_slot();
    if (wait <= steady::duration::zero()) return go();
    auto timer = std::make_shared<net::steady_timer>(io, wait);
    timer->async_wait([timer, go = std::forward<F>(go)](error_code) mutable { go(); });
  }

  void fail_later(response_callback done, kp::error e) {
    net::post(io, [shared = shared, done = std::move(done), e = std::move(e)]() mutable {
      invoke_guarded(shared->options.on_failure, "http client: response callback", done,
                     response_result(std::move(e)));
    });
  }

  std::shared_ptr<connection> make_connection(const parsed_url& url) {
    std::shared_ptr<connection> c;
    if (url.tls) {
      auto impl_c = std::make_shared<connection_impl<beast::ssl_stream<beast::tcp_stream>>>(
          io, shared, url, *shared->tls);
      impl_c->register_canceller();
      c = impl_c;
    } else {
      auto impl_c = std::make_shared<connection_impl<beast::tcp_stream>>(io, shared, url);
      impl_c->register_canceller();
      c = impl_c;
    }
    c->key = url.pool_key();
    return c;
  }

  // ---- pool
  void submit(std::shared_ptr<request_job> job) {
    std::shared_ptr<connection> conn;
    bool create = false;
    std::vector<std::shared_ptr<connection>> expired;
    {
      std::lock_guard lock(mutex);
      if (destroyed)
        return fail_later(std::move(job->done), make_error("cancelled", "client closed"));
      auto& pool = pools[job->url.pool_key()];
      const auto now = steady::now();
      while (!pool.idle.empty()) {
        auto candidate = std::move(pool.idle.back());
        pool.idle.pop_back();
        if (now - candidate->idle_since > shared->options.idle_timeout) {
          --pool.total;
          expired.push_back(std::move(candidate));
          continue;
        }
        conn = std::move(candidate);
        break;
      }
      if (!conn) {
        if (pool.total < shared->options.max_connections_per_host) {
          ++pool.total;
          create = true;
        } else {
          pool.waiting.push_back(std::move(job));
        }
      }
    }
    for (auto& c : expired) c->cancel();
    if (create) return open_and_run(std::move(job));
    if (conn) run(std::move(conn), std::move(job));
  }

  // A new connection for `job`; its slot in the pool is already counted.
  void open_and_run(std::shared_ptr<request_job> job) {
    std::shared_ptr<connection> conn;
    {
      std::lock_guard lock(mutex);
      conn = make_connection(job->url);
      conn->generation = generation;
    }
    conn->connect([self = shared_from_this(), conn, job](status s) mutable {
      if (!s) {
        self->discard(conn);
        invoke_guarded(self->shared->options.on_failure, "http client: response callback",
                       job->done, response_result(s.error()));
        return;
      }
      self->run(std::move(conn), std::move(job));
    });
  }

  void run(std::shared_ptr<connection> conn, std::shared_ptr<request_job> job) {
    conn->exchange(job, [self = shared_from_this(), conn, job](outcome o) mutable {
      self->finished(std::move(conn), std::move(job), std::move(o));
    });
  }

  void finished(std::shared_ptr<connection> conn, std::shared_ptr<request_job> job, outcome o) {
    if (o.untouched) {
      discard(conn);
      submit(std::move(job));
      return;
    }
    if (o.stale && !job->retried && (job->idempotent || o.nothing_written)) {
      // The server closed this kept-alive connection; the request never got an answer, so it
      // is safe to send it again, once, elsewhere.
      job->retried = true;
      discard(conn);
      submit(std::move(job));
      return;
    }
    if (o.reusable) {
      release(std::move(conn));
    } else {
      discard(std::move(conn));
    }
    if (o.response) {
      invoke_guarded(shared->options.on_failure, "http client: response callback", job->done,
                     std::move(*o.response));
    } else {
      invoke_guarded(shared->options.on_failure, "http client: response callback", job->done,
                     response_result(make_error("closed", "the server closed the connection")));
    }
  }

  // Back to the pool, or straight to the next waiting request.
  void release(std::shared_ptr<connection> conn) {
    std::shared_ptr<request_job> next;
    bool reuse = false;
    {
      std::lock_guard lock(mutex);
      auto& pool = pools[conn->key];
      if (destroyed || conn->generation != generation) {
        --pool.total;
        if (!pool.waiting.empty() && !destroyed) {
          // The retired connection's slot goes to a waiting request on a fresh connection.
          ++pool.total;
          next = std::move(pool.waiting.front());
          pool.waiting.pop_front();
        }
      } else if (!pool.waiting.empty()) {
        next = std::move(pool.waiting.front());
        pool.waiting.pop_front();
        reuse = true;
      } else {
        conn->idle_since = steady::now();
        pool.idle.push_back(std::move(conn));
        return;
      }
    }
    // Outside the lock: running may complete inline on this strand and re-enter the pool.
    if (reuse) return run(std::move(conn), std::move(next));
    conn->cancel();
    if (next) open_and_run(std::move(next));
  }

  // The connection is finished; its slot goes to a waiting request (on a new connection).
  void discard(std::shared_ptr<connection> conn) {
    std::shared_ptr<request_job> next;
    {
      std::lock_guard lock(mutex);
      auto& pool = pools[conn->key];
      --pool.total;
      if (!pool.waiting.empty() && !destroyed) {
        ++pool.total;
        next = std::move(pool.waiting.front());
        pool.waiting.pop_front();
      }
    }
    conn->cancel();
    if (next) open_and_run(std::move(next));
  }

  void close_pools(bool forever) {
    std::vector<std::shared_ptr<connection>> idle;
    std::vector<std::shared_ptr<request_job>> waiting;
    std::vector<std::function<void()>> cancellers;
    {
      std::lock_guard lock(mutex);
      if (forever) destroyed = true;
      ++generation;
      for (auto& [key, pool] : pools) {
        for (auto& c : pool.idle) idle.push_back(std::move(c));
        pool.total -= pool.idle.size();
        pool.idle.clear();
        for (auto& j : pool.waiting) waiting.push_back(std::move(j));
        pool.waiting.clear();
      }
    }
    if (forever) {
      std::lock_guard lock(shared->mutex);
      for (auto& [key, cancel] : shared->cancellers) cancellers.push_back(cancel);
    }
    for (auto& c : idle) c->cancel();
    for (auto& cancel : cancellers) cancel();
    for (auto& j : waiting)
      fail_later(std::move(j->done), make_error("cancelled", "client closed"));
  }
};

http_client::http_client(net::io_context& io, client_options options)
    : impl_(std::make_shared<impl>(io, std::move(options))) {}

http_client::~http_client() {
  impl_->close_pools(true);
}

status http_client::configured() const {
  if (impl_->shared->tls_error) return *impl_->shared->tls_error;
  return {};
}

namespace {

http::request<http::string_body> build_message(const parsed_url& url, http_request&& request) {
  http::request<http::string_body> message;
  message.version(11);
  const auto verb = http::string_to_verb(request.method);
  if (verb == http::verb::unknown) {
    message.method_string(request.method);
  } else {
    message.method(verb);
  }
  std::string target = request.target.empty() ? "/" : request.target;
  if (target.front() != '/' && target.front() != '?') target.insert(target.begin(), '/');
  message.target(url.prefix + target);
  for (auto& [name, value] : request.headers) {
    if (beast::iequals(name, "content-length") || beast::iequals(name, "transfer-encoding") ||
        beast::iequals(name, "connection"))
      continue;
    message.insert(name, value);
  }
  if (message.find(http::field::host) == message.end())
    message.set(http::field::host, url.host_header);
  message.body() = std::move(request.body);
  message.keep_alive(true);
  message.prepare_payload();
  return message;
}

}  // namespace

void http_client::send(const std::string& base_url, http_request request, response_callback done) {
  auto url = parse_base_url(base_url);
  if (!url) return impl_->fail_later(std::move(done), url.error());
  if (url->tls && !impl_->shared->tls)
    return impl_->fail_later(std::move(done), *impl_->shared->tls_error);
  auto job = std::make_shared<request_job>();
  job->message = build_message(*url, std::move(request));
  job->idempotent = is_idempotent(job->message.method());
  job->url = std::move(*url);
  job->done = std::move(done);
  impl_->after_rate_limit([self = impl_, job]() mutable { self->submit(std::move(job)); });
}

std::shared_ptr<http_stream> http_client::open_stream(const std::string& base_url,
                                                      http_request request,
                                                      stream_callbacks callbacks,
                                                      std::chrono::milliseconds idle_timeout) {
  auto url = parse_base_url(base_url);
  std::optional<kp::error> failure;
  if (!url) {
    failure = url.error();
  } else if (url->tls && !impl_->shared->tls) {
    failure = *impl_->shared->tls_error;
  } else {
    std::lock_guard lock(impl_->mutex);
    if (impl_->destroyed) failure = make_error("cancelled", "client closed");
  }
  if (failure) {
    net::post(impl_->io, [shared = impl_->shared, cb = std::move(callbacks.on_end),
                          e = std::move(*failure)]() mutable {
      invoke_guarded(shared->options.on_failure, "http client: stream on_end callback", cb,
                     status(std::move(e)));
    });
    return std::make_shared<stream_handle>(nullptr);
  }
  auto message = build_message(*url, std::move(request));
  std::shared_ptr<connection> conn = impl_->make_connection(*url);
  impl_->after_rate_limit(
      [conn, m = std::move(message), cb = std::move(callbacks), idle_timeout]() mutable {
        conn->stream(std::move(m), std::move(cb), idle_timeout);
      });
  return std::make_shared<stream_handle>(conn);
}

void http_client::close() {
  impl_->close_pools(false);
}

std::size_t http_client::open_connections() const {
  return impl_->shared->open.load();
}

tls_handshake_counts http_client::tls_handshakes() const {
  return {impl_->shared->full_handshakes.load(), impl_->shared->resumed_handshakes.load()};
}

}  // namespace kp::transport
