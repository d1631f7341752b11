#include "protocol/transport/http_server.hpp"

#include <openssl/ssl.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <deque>
#include <mutex>
#include <unordered_map>

#include "protocol/transport/tls_context.hpp"

namespace kp::transport {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
using error_code = boost::system::error_code;

namespace {

// Requests read ahead of their responses on one connection (HTTP/1.1 pipelining). Beyond it
// the session stops reading until responses drain.
constexpr std::size_t max_pipelined = 16;

using request_parser = http::request_parser<http::string_body>;

// The limits every request is parsed under, on a connection and in parse_request_bytes().
void configure(request_parser& parser, const server_options& options) {
  parser.body_limit(options.body_limit);
  const auto header_limit = options.header_limit;
  parser.header_limit(header_limit == 0 || header_limit > UINT32_MAX
                          ? UINT32_MAX
                          : static_cast<std::uint32_t>(header_limit));
}

// What the server answers a request it cannot parse: 413 over the body limit, 431 over the
// header limit, 400 for anything else malformed.
int refusal_status(const error_code& ec) {
  if (ec == http::error::body_limit) return 413;
  if (ec == http::error::header_limit) return 431;
  return 400;
}

http_request to_request(http::request<http::string_body>&& message) {
  http_request request;
  request.method = std::string(message.method_string());
  request.target = std::string(message.target());
  for (const auto& field : message)
    request.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  request.body = std::move(message.body());
  return request;
}

// One request's reply as the session sees it. Touched only on the session's strand, except
// `open`, which handlers read from any thread.
struct exchange_state {
  unsigned version = 11;
  bool keep_alive = true;
  bool head_method = false;
  std::atomic<bool> open{true};

  bool replied = false;  // respond() or start_stream() arrived
  std::optional<http::response<http::string_body>> full;

  bool stream = false;
  std::optional<http::response<http::empty_body>> head;
  std::optional<http::response_serializer<http::empty_body>> head_serializer;
  bool head_written = false;
  std::string pending;  // chunk data not yet written
  std::string writing;  // chunk data being written
  bool finish_requested = false;
  http_exchange::body_pieces pull;  // a pulled reply's source, until it returns no more
};

// What exchange handles and the server need from a session, whatever its stream type. Every
// method posts to the session's strand, so it may be called from any thread.
class session_link {
 public:
  virtual ~session_link() = default;
  virtual void respond(std::shared_ptr<exchange_state> st, http_response response) = 0;
  virtual void start_stream(std::shared_ptr<exchange_state> st, int status,
                            header_list headers) = 0;
  virtual void respond_pulled(std::shared_ptr<exchange_state> st, int status, header_list headers,
                              http_exchange::body_pieces next) = 0;
  virtual void write(std::shared_ptr<exchange_state> st, std::string chunk) = 0;
  virtual void finish(std::shared_ptr<exchange_state> st) = 0;
  virtual void on_close(std::function<void()> callback) = 0;
  virtual void stop() = 0;
};

// The handler's side of one request. Remembers what was sent so that dropping it without a
// reply (a handler bug) still answers the client instead of hanging the connection.
class exchange_handle final : public http_exchange {
 public:
  // No executor is kept here: a handle may outlive the io_context (a watch registry destroyed
  // late), and an executor copy would then point into a destroyed context.
  exchange_handle(std::weak_ptr<session_link> session, std::shared_ptr<exchange_state> state)
      : session_(std::move(session)), state_(std::move(state)) {}

  ~exchange_handle() override {
    auto s = session_.lock();
    if (!s) return;
    if (!responded_.load() && !streaming_.load()) {
      http_response r;
      r.status = 500;
      r.body = "the request handler dropped the request without replying\n";
      s->respond(state_, std::move(r));
    } else if (streaming_.load() && !finished_.load()) {
      s->finish(state_);
    }
  }

  void respond(http_response response) override {
    if (responded_.exchange(true) || streaming_.load()) return;
    if (auto s = session_.lock()) s->respond(state_, std::move(response));
  }
  void start_stream(int status, header_list headers) override {
    if (responded_.load() || streaming_.exchange(true)) return;
    if (auto s = session_.lock()) s->start_stream(state_, status, std::move(headers));
  }
  void respond_pulled(int status, header_list headers, body_pieces next) override {
    if (responded_.load() || streaming_.exchange(true)) return;
    finished_ = true;  // the pieces end the reply, not finish() or this handle's end
    if (auto s = session_.lock())
      s->respond_pulled(state_, status, std::move(headers), std::move(next));
  }
  void write(std::string chunk) override {
    if (!streaming_.load() || finished_.load() || chunk.empty()) return;
    if (auto s = session_.lock()) s->write(state_, std::move(chunk));
  }
  void finish() override {
    if (!streaming_.load() || finished_.exchange(true)) return;
    if (auto s = session_.lock()) s->finish(state_);
  }
  bool open() const override { return state_->open.load(); }
  void on_close(std::function<void()> callback) override {
    if (auto s = session_.lock()) {
      s->on_close(std::move(callback));
    } else if (callback) {
      callback();  // the connection is gone already: tell at once
    }
  }

 private:
  std::weak_ptr<session_link> session_;
  std::shared_ptr<exchange_state> state_;
  std::atomic<bool> responded_{false}, streaming_{false}, finished_{false};
};

// What sessions share with the server; kept alive by sessions after the server object is gone.
struct server_shared {
  server_options options;
  request_handler handler;
  std::shared_ptr<ssl::context> tls;
  std::atomic<bool> stopping{false};
  std::atomic<std::uint64_t> accepted{0};
  mutable std::mutex mutex;
  std::unordered_map<std::uint64_t, std::weak_ptr<session_link>> sessions;
  std::uint64_t next_id = 0;
  // At max_connections the acceptor pauses; the session that closes first resumes it.
  bool accept_paused = false;
  std::function<void()> resume_accept;

  void unregister(std::uint64_t id) {
    std::function<void()> resume;
    {
      std::lock_guard lock(mutex);
      sessions.erase(id);
      if (accept_paused && sessions.size() < options.max_connections) {
        accept_paused = false;
        resume = resume_accept;
      }
    }
    if (resume) resume();
  }

  // Called after a connection was tracked: whether to accept the next one now.
  bool may_accept_more() {
    std::lock_guard lock(mutex);
    if (options.max_connections == 0 || sessions.size() < options.max_connections) return true;
    accept_paused = true;
    return false;
  }
};

template <class Stream>
class session final : public session_link, public std::enable_shared_from_this<session<Stream>> {
 public:
  template <class... StreamArgs>
  session(std::shared_ptr<server_shared> shared, std::uint64_t id, StreamArgs&&... stream_args)
      : stream_(std::forward<StreamArgs>(stream_args)...),
        shared_(std::move(shared)),
        id_(id),
        read_timer_(stream_.get_executor()),
        write_timer_(stream_.get_executor()),
        stop_timer_(stream_.get_executor()) {}

  ~session() override { shared_->unregister(id_); }

  void start() {
    net::dispatch(stream_.get_executor(), [self = this->shared_from_this()] { self->begin(); });
  }

  // ---- session_link: called from any thread, work hops onto the strand.
  void respond(std::shared_ptr<exchange_state> st, http_response response) override {
    net::post(stream_.get_executor(), [self = this->shared_from_this(), st = std::move(st),
                                       r = std::move(response)]() mutable {
      self->do_respond(std::move(st), std::move(r));
    });
  }
  void start_stream(std::shared_ptr<exchange_state> st, int status, header_list headers) override {
    net::post(stream_.get_executor(), [self = this->shared_from_this(), st = std::move(st), status,
                                       h = std::move(headers)]() mutable {
      self->do_start_stream(std::move(st), status, std::move(h));
    });
  }
  void respond_pulled(std::shared_ptr<exchange_state> st, int status, header_list headers,
                      http_exchange::body_pieces next) override {
    net::post(stream_.get_executor(), [self = this->shared_from_this(), st = std::move(st), status,
                                       h = std::move(headers), n = std::move(next)]() mutable {
      if (self->closed_ || st->replied) return;
      if (!st->head_method) st->pull = std::move(n);
      st->finish_requested = !st->pull;
      self->do_start_stream(std::move(st), status, std::move(h));
    });
  }
  void write(std::shared_ptr<exchange_state> st, std::string chunk) override {
    net::post(stream_.get_executor(), [self = this->shared_from_this(), st = std::move(st),
                                       c = std::move(chunk)]() mutable {
      if (!st->stream || st->finish_requested || self->closed_) return;
      st->pending += c;
      // A client that reads slower than the stream produces: drop it rather than buffer
      // without bound (a watcher then re-lists, as after any disconnect).
      const auto& o = self->shared_->options;
      if (st->pending.size() > o.stream_buffer_limit.value_or(o.body_limit)) return self->close();
      self->pump();
    });
  }
  void finish(std::shared_ptr<exchange_state> st) override {
    net::post(stream_.get_executor(), [self = this->shared_from_this(), st = std::move(st)] {
      if (!st->stream) return;
      st->finish_requested = true;
      self->pump();
    });
  }
  void on_close(std::function<void()> callback) override {
    net::post(stream_.get_executor(),
              [self = this->shared_from_this(), cb = std::move(callback)]() mutable {
                if (self->closed_) {
                  cb();
                } else {
                  self->close_callbacks_.push_back(std::move(cb));
                }
              });
  }
  void stop() override {
    net::post(stream_.get_executor(), [self = this->shared_from_this()] { self->do_stop(); });
  }

 private:
  using self_ptr = std::shared_ptr<session<Stream>>;
  static constexpr bool is_tls = !std::is_same_v<Stream, beast::tcp_stream>;

  auto& lowest() { return beast::get_lowest_layer(stream_); }

  // ---- timers: our own, because reads and writes overlap on one connection (a read stays
  // pending during a long stream to notice the client leaving) and need different deadlines.
  void arm(net::steady_timer& timer, std::uint64_t& generation, std::chrono::milliseconds d) {
    if (d <= std::chrono::milliseconds::zero()) return disarm(timer, generation);  // no deadline
    const auto gen = ++generation;
    timer.expires_after(d);
    timer.async_wait(
        [weak = std::weak_ptr<session>(this->shared_from_this()), &generation, gen](error_code ec) {
          auto self = weak.lock();
          // A re-arm cancels the old wait, but a wait that already fired may still be queued:
          // the generation tells it apart.
          if (!self || ec || generation != gen) return;
          self->close();
        });
  }
  void disarm(net::steady_timer& timer, std::uint64_t& generation) {
    ++generation;
    timer.cancel();
  }

  void begin() {
    if (shared_->stopping.load()) return close();
    if constexpr (is_tls) {
      arm(read_timer_, read_gen_, shared_->options.read_timeout);
      stream_.async_handshake(
          ssl::stream_base::server,
          [self = this->shared_from_this()](error_code ec) { self->on_handshake(ec); });
    } else {
      do_read();
    }
  }

  void on_handshake(error_code ec) {
    disarm(read_timer_, read_gen_);
    if (ec || closed_) return close();
    if constexpr (is_tls) {
      SSL* native = stream_.native_handle();
      const X509* cert = SSL_get0_peer_certificate(native);
      // verify_peer already refused a certificate that does not verify; the check keeps the
      // identity empty should verification ever be relaxed.
      if (cert != nullptr && SSL_get_verify_result(native) == X509_V_OK)
        peer_ = detail::identity_of(cert);
    }
    do_read();
  }

  // ---- reading requests
  void do_read() {
    if (reading_ || closed_ || read_closed_ || queue_.size() >= max_pipelined) return;
    reading_ = true;
    in_body_ = false;
    parser_.emplace();
    configure(*parser_, shared_->options);
    // Idle deadline only when nothing is outstanding; during a reply the read merely watches
    // for the client going away.
    if (queue_.empty()) {
      arm(read_timer_, read_gen_, shared_->options.idle_timeout);
    } else {
      disarm(read_timer_, read_gen_);
    }
    if (buffer_.size() > 0 || shared_->options.header_timeout.count() <= 0) return read_header();
    // Wait for the first byte under the idle deadline; from then on the header has
    // header_timeout, so a client trickling a header cannot hold the connection for long.
    stream_.async_read_some(
        buffer_.prepare(4096), [self = this->shared_from_this()](error_code ec, std::size_t n) {
          self->buffer_.commit(n);
          if (ec) return self->on_read(ec);
          if (self->closed_) return;
          self->arm(self->read_timer_, self->read_gen_, self->shared_->options.header_timeout);
          self->read_header();
        });
  }

  void read_header() {
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = this->shared_from_this()](error_code ec, std::size_t) { self->on_header(ec); });
  }

  void on_header(error_code ec) {
    if (ec) return on_read(ec);
    if (parser_->chunked() && !shared_->options.chunked_bodies) {
      // The body is never read, so the connection cannot carry another request.
      disarm(read_timer_, read_gen_);
      reading_ = false;
      http_response r;
      r.status = 411;
      r.body = "a chunked request body is not accepted here: send Content-Length\n";
      return answer_and_close(std::move(r));
    }
    in_body_ = true;
    arm(read_timer_, read_gen_, shared_->options.read_timeout);
    auto& req = parser_->get();
    const bool wants_continue =
        beast::iequals(req[http::field::expect], "100-continue") && !parser_->is_done();
    if (wants_continue && queue_.empty() && !writing_) {
      writing_ = true;
      static const std::string continue_line = "HTTP/1.1 100 Continue\r\n\r\n";
      net::async_write(stream_, net::buffer(continue_line),
                       [self = this->shared_from_this()](error_code wec, std::size_t) {
                         self->writing_ = false;
                         if (wec) return self->close();
                         self->read_body();
                         self->pump();
                       });
      return;
    }
    read_body();
  }

  // A refusal whose request cannot be read to its end: answered last, then the connection
  // closes, since the rest of the stream is not a request boundary.
  void answer_and_close(http_response r) {
    read_closed_ = true;
    auto st = std::make_shared<exchange_state>();
    st->keep_alive = false;
    queue_.push_back(st);
    do_respond(st, std::move(r));
  }

  void read_body() {
    http::async_read(
        stream_, buffer_, *parser_,
        [self = this->shared_from_this()](error_code ec, std::size_t) { self->on_read(ec); });
  }

  void on_read(error_code ec) {
    reading_ = false;
    in_body_ = false;
    disarm(read_timer_, read_gen_);
    if (closed_) return;
    if (ec == http::error::body_limit) {
      http_response r;
      r.status = 413;
      r.body = "request body exceeds the limit of " + std::to_string(shared_->options.body_limit) +
               " bytes\n";
      return answer_and_close(shared_->options.body_limit_reply.value_or(std::move(r)));
    }
    if (ec) {
      const bool parse_error = ec.category() == error_code(http::error::bad_target).category() &&
                               ec != http::error::end_of_stream &&
                               ec != http::error::partial_message;
      if (parse_error && queue_.empty() && !writing_) {
        http_response r;
        r.status = refusal_status(ec);
        r.body = r.status == 431 ? "request header exceeds the limit of " +
                                       std::to_string(shared_->options.header_limit) + " bytes\n"
                                 : "malformed request: " + ec.message() + "\n";
        return answer_and_close(std::move(r));
      }
      // The client left (or timed out): nothing more can be delivered.
      return close();
    }
    if (stopping_ || shared_->stopping.load()) {
      read_closed_ = true;
      if (queue_.empty()) close();
      return;
    }
    auto message = parser_->release();
    parser_.reset();

    auto st = std::make_shared<exchange_state>();
    st->version = message.version();
    st->keep_alive = message.keep_alive();
    st->head_method = message.method() == http::verb::head;
    if (!st->keep_alive) read_closed_ = true;
    queue_.push_back(st);

    http_request request = to_request(std::move(message));
    request.peer = peer_;

    auto handle = std::make_shared<exchange_handle>(
        std::weak_ptr<session_link>(this->shared_from_this()), st);
    try {
      shared_->handler(std::move(request), handle);
    } catch (...) {
      auto failure = std::current_exception();
      report_failure(shared_->options.on_failure, "http server: request handler", failure);
      http_response r;
      r.status = 500;
      r.body = "request handler failed: " + describe(failure) + "\n";
      handle->respond(std::move(r));
    }
    handle.reset();
    do_read();  // the next (pipelined) request, or watch for the client leaving
  }

  // ---- replies, written strictly in request order
  static void copy_headers(const header_list& from, http::fields& to) {
    for (const auto& [name, value] : from) {
      // Framing is ours to decide.
      if (beast::iequals(name, "content-length") || beast::iequals(name, "transfer-encoding") ||
          beast::iequals(name, "connection"))
        continue;
      to.insert(name, value);
    }
  }

  bool keep_alive_for(const exchange_state& st) const {
    return st.keep_alive && !stopping_ && !shared_->stopping.load();
  }

  void do_respond(std::shared_ptr<exchange_state> st, http_response r) {
    if (closed_ || st->replied) return;
    st->replied = true;
    http::response<http::string_body> res;
    res.version(st->version);
    res.result(static_cast<unsigned>(r.status));
    if (!r.reason.empty()) res.reason(r.reason);
    copy_headers(r.headers, res.base());
    res.body() = std::move(r.body);
    res.keep_alive(keep_alive_for(*st));
    res.prepare_payload();
    if (st->head_method) res.body().clear();  // HEAD: the length of what GET would send, no body
    st->full = std::move(res);
    pump();
  }

  void do_start_stream(std::shared_ptr<exchange_state> st, int status, header_list headers) {
    if (closed_ || st->replied) return;
    st->replied = true;
    st->stream = true;
    st->head.emplace();
    st->head->version(st->version);
    st->head->result(static_cast<unsigned>(status));
    copy_headers(headers, st->head->base());
    st->head->keep_alive(keep_alive_for(*st));
    st->head->chunked(true);
    if (stopping_ && !st->pull) st->finish_requested = true;
    if (!reading_ && read_closed_) watch_for_close();
    pump();
  }

  // A stream on a connection that reads no further requests (the client sent Connection: close)
  // still needs a read pending: it is what keeps the session alive between writes, and it
  // notices the client leaving. Bytes the client sends anyway are discarded.
  void watch_for_close() {
    if (closed_) return;
    reading_ = true;
    stream_.async_read_some(net::buffer(drain_buffer_),
                            [self = this->shared_from_this()](error_code ec, std::size_t) {
                              self->reading_ = false;
                              if (ec || self->closed_) return self->close();
                              self->watch_for_close();
                            });
  }

  void pump() {
    if (writing_ || closed_ || queue_.empty()) return;
    auto st = queue_.front();
    if (st->full) {
      start_write();
      http::async_write(stream_, *st->full,
                        [self = this->shared_from_this(), st](error_code ec, std::size_t) {
                          self->on_written(ec, st, true);
                        });
    } else if (st->stream && !st->head_written) {
      st->head_written = true;
      st->head_serializer.emplace(*st->head);
      start_write();
      http::async_write_header(stream_, *st->head_serializer,
                               [self = this->shared_from_this(), st](error_code ec, std::size_t) {
                                 self->on_written(ec, st, false);
                               });
    } else if (st->stream && !st->pending.empty()) {
      st->writing = std::move(st->pending);
      st->pending.clear();
      start_write();
      net::async_write(stream_, http::make_chunk(net::buffer(st->writing)),
                       [self = this->shared_from_this(), st](error_code ec, std::size_t) {
                         self->on_written(ec, st, false);
                       });
    } else if (st->stream && st->pull && !st->finish_requested) {
      // A pulled reply: its next piece, now that the previous one is written.
      std::string piece;
      try {
        piece = st->pull();
      } catch (...) {
        // The reply is cut short; the client sees a body without its last chunk.
        return close();
      }
      if (piece.empty()) {
        st->pull = nullptr;
        st->finish_requested = true;
      } else {
        st->pending = std::move(piece);
      }
      pump();
    } else if (st->stream && st->head_method && st->finish_requested) {
      // HEAD: the status and headers are the whole reply, no chunk follows them.
      on_written({}, st, true);
    } else if (st->stream && st->finish_requested) {
      start_write();
      net::async_write(stream_, http::make_chunk_last(),
                       [self = this->shared_from_this(), st](error_code ec, std::size_t) {
                         self->on_written(ec, st, true);
                       });
    }
  }

  void start_write() {
    writing_ = true;
    arm(write_timer_, write_gen_, shared_->options.write_timeout);
  }

  void on_written(error_code ec, const std::shared_ptr<exchange_state>& st, bool complete) {
    writing_ = false;
    disarm(write_timer_, write_gen_);
    if (closed_) return;
    if (ec) return close();
    if (complete) {
      const bool keep = st->full ? st->full->keep_alive() : st->head->keep_alive();
      st->open = false;
      queue_.pop_front();
      if (!keep) return linger_close();
      if (queue_.empty() && (stopping_ || read_closed_)) return linger_close();
      // Nothing outstanding any more: the pending read waits for a new request, idle deadline.
      if (queue_.empty() && reading_ && !in_body_)
        arm(read_timer_, read_gen_, shared_->options.idle_timeout);
      do_read();  // resumes a read paused at max_pipelined
    }
    pump();
  }

  // ---- ending
  // After a final reply the client may still be sending (a body over the limit): closing at
  // once would reset the connection and could destroy the reply in the client's buffers. So
  // stop sending, discard what still arrives for a moment, then close.
  void linger_close() {
    if (closed_) return;
    read_closed_ = true;
    if (reading_) return close();  // a read is pending on the stream; it cannot be shared
    error_code ec;
    lowest().socket().shutdown(tcp::socket::shutdown_send, ec);
    if (ec) return close();
    arm(read_timer_, read_gen_,
        std::min(shared_->options.read_timeout, std::chrono::milliseconds(2000)));
    drain();
  }

  void drain() {
    lowest().socket().async_read_some(
        net::buffer(drain_buffer_), [self = this->shared_from_this()](error_code ec, std::size_t) {
          if (ec || self->closed_) return self->close();
          self->drain();
        });
  }

  void do_stop() {
    if (closed_ || stopping_) return;
    stopping_ = true;
    read_closed_ = true;
    for (auto& st : queue_) st->open = false;
    if (queue_.empty() && !writing_) return close();
    for (auto& st : queue_) {
      // A pulled reply is left to complete within the grace period: ended early, its body would
      // look whole to the client.
      if (st->stream && !st->pull) st->finish_requested = true;
      if (st->full) st->full->keep_alive(false);
    }
    // In-flight replies get a grace period, not forever: process exit must not hang.
    arm(stop_timer_, stop_gen_, shared_->options.stop_grace);
    pump();
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    disarm(read_timer_, read_gen_);
    disarm(write_timer_, write_gen_);
    disarm(stop_timer_, stop_gen_);
    for (auto& st : queue_) st->open = false;
    queue_.clear();
    error_code ec;
    // No TLS close_notify: every reply is length-delimited or chunked, so the peer knows where
    // it ends, and a peer that stopped reading must not hold the close up.
    lowest().socket().shutdown(tcp::socket::shutdown_both, ec);
    lowest().close();
    auto callbacks = std::move(close_callbacks_);
    close_callbacks_.clear();
    for (auto& cb : callbacks) {
      try {
        cb();
      } catch (...) {
      }
    }
    shared_->unregister(id_);
  }

  Stream stream_;
  std::shared_ptr<server_shared> shared_;
  std::uint64_t id_;
  net::steady_timer read_timer_;
  net::steady_timer write_timer_;
  net::steady_timer stop_timer_;  // bounds how long stop() lets in-flight replies finish
  std::uint64_t read_gen_ = 0;
  std::uint64_t write_gen_ = 0;
  std::uint64_t stop_gen_ = 0;
  beast::flat_buffer buffer_;
  std::array<char, 4096> drain_buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::deque<std::shared_ptr<exchange_state>> queue_;
  std::vector<std::function<void()>> close_callbacks_;
  peer_identity peer_;
  bool reading_ = false;
  bool in_body_ = false;
  bool writing_ = false;
  bool read_closed_ = false;  // no further requests will be read (Connection: close, stop, 413)
  bool stopping_ = false;
  bool closed_ = false;
};

}  // namespace

parsed_request parse_request_bytes(std::string_view bytes, const server_options& options) {
  parsed_request out;
  request_parser parser;
  configure(parser, options);
  error_code ec;
  // The header first, then the body, as a connection reads them (async_read_header, then
  // async_read): the server decides on a chunked body between the two.
  const auto feed = [&](auto finished) {
    while (!bytes.empty() && !finished()) {
      const auto used = parser.put(net::buffer(bytes.data(), bytes.size()), ec);
      if (ec == http::error::need_more) {
        ec = {};
        if (used == 0) break;  // the rest is an incomplete line: more bytes would be needed
      }
      if (ec) return false;
      bytes.remove_prefix(used);
    }
    return true;
  };
  if (!feed([&] { return parser.is_header_done(); })) {
    out.refusal = refusal_status(ec);
    return out;
  }
  if (!parser.is_header_done()) return out;
  if (parser.chunked() && !options.chunked_bodies) {
    out.refusal = 411;
    return out;
  }
  parser.eager(true);
  if (!feed([&] { return parser.is_done(); })) {
    out.refusal = refusal_status(ec);
    return out;
  }
  if (!parser.is_done()) {
    // A body delimited by the end of the stream does not exist in requests: this is partial.
    return out;
  }
  out.complete = true;
  out.request = to_request(parser.release());
  return out;
}

struct http_server::impl : std::enable_shared_from_this<http_server::impl> {
  impl(net::io_context& io_context, server_options options, request_handler handler)
      : io(io_context),
        acceptor(net::make_strand(io_context)),
        retry_timer(acceptor.get_executor()) {
    shared = std::make_shared<server_shared>();
    shared->options = std::move(options);
    shared->handler = std::move(handler);
  }

  net::io_context& io;
  std::shared_ptr<server_shared> shared;
  tcp::acceptor acceptor;
  net::steady_timer retry_timer;
  std::atomic<std::uint16_t> port{0};
  std::atomic<bool> started{false};
  std::atomic<bool> stopped{false};

  // The acceptor is closed by stop() on the caller's thread (so that the port is free when
  // stop() returns, even when no thread runs the context); every use of it holds this mutex.
  // A pending accept is cancelled safely by the reactor.
  std::mutex acceptor_mutex;

  void accept() {
    std::lock_guard lock(acceptor_mutex);
    if (stopped.load() || !acceptor.is_open()) return;
    acceptor.async_accept(net::make_strand(io),
                          [self = shared_from_this()](error_code ec, tcp::socket socket) {
                            self->on_accept(ec, std::move(socket));
                          });
  }

  void on_accept(error_code ec, tcp::socket socket) {
    if (stopped.load()) return;
    if (ec) {
      // Out of descriptors and the like: try again shortly instead of spinning.
      retry_timer.expires_after(std::chrono::milliseconds(50));
      retry_timer.async_wait([self = shared_from_this()](error_code tec) {
        if (!tec) self->accept();
      });
      return;
    }
    error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    shared->accepted.fetch_add(1);
    std::uint64_t id;
    {
      std::lock_guard lock(shared->mutex);
      id = ++shared->next_id;
    }
    if (shared->tls) {
      auto s = std::make_shared<session<beast::ssl_stream<beast::tcp_stream>>>(
          shared, id, std::move(socket), *shared->tls);
      track(id, s);
      s->start();
    } else {
      auto s = std::make_shared<session<beast::tcp_stream>>(shared, id, std::move(socket));
      track(id, s);
      s->start();
    }
    if (shared->may_accept_more()) accept();
  }

  void track(std::uint64_t id, const std::shared_ptr<session_link>& s) {
    std::lock_guard lock(shared->mutex);
    shared->sessions.emplace(id, s);
  }
};

http_server::http_server(net::io_context& io, server_options options, request_handler handler)
    : impl_(std::make_shared<impl>(io, std::move(options), std::move(handler))) {}

http_server::~http_server() {
  stop();
}

status http_server::start() {
  if (impl_->started.exchange(true)) return make_error("server", "server already started");
  const auto& opts = impl_->shared->options;
  if (opts.tls) {
    auto ctx = detail::make_server_context(*opts.tls);
    if (!ctx) return ctx.error();
    impl_->shared->tls = std::move(*ctx);
  }
  error_code ec;
  auto address = net::ip::make_address(opts.address, ec);
  if (ec)
    return make_error("bind", "invalid listen address '" + opts.address + "': " + ec.message());
  tcp::endpoint endpoint(address, opts.port);
  auto& acceptor = impl_->acceptor;
  const std::string where = opts.address + ":" + std::to_string(opts.port);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (ec) return make_error("bind", "cannot listen on " + where + ": " + ec.message());
  acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) return make_error("bind", "cannot listen on " + where + ": " + ec.message());
  impl_->port = acceptor.local_endpoint(ec).port();
  {
    std::lock_guard lock(impl_->shared->mutex);
    impl_->shared->resume_accept = [weak = std::weak_ptr<impl>(impl_)] {
      if (auto self = weak.lock())
        net::dispatch(self->acceptor.get_executor(), [self] { self->accept(); });
    };
  }
  net::dispatch(acceptor.get_executor(), [self = impl_] { self->accept(); });
  return {};
}

std::uint16_t http_server::port() const {
  return impl_->port.load();
}

std::size_t http_server::connections() const {
  std::lock_guard lock(impl_->shared->mutex);
  return impl_->shared->sessions.size();
}

std::uint64_t http_server::accepted_connections() const {
  return impl_->shared->accepted.load();
}

void http_server::stop() {
  if (!impl_->started.load() || impl_->stopped.exchange(true)) return;
  impl_->shared->stopping = true;

  {
    std::lock_guard lock(impl_->acceptor_mutex);
    error_code ignored;
    impl_->acceptor.close(ignored);
  }

  std::vector<std::shared_ptr<session_link>> live;
  {
    std::lock_guard lock(impl_->shared->mutex);
    for (auto& [id, weak] : impl_->shared->sessions)
      if (auto s = weak.lock()) live.push_back(std::move(s));
  }
  for (auto& s : live) s->stop();
}

}  // namespace kp::transport
