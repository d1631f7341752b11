#include "protocol/kube/client.hpp"

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json.hpp>
#include <cctype>
#include <mutex>
#include <random>

#include "core/text/base64.hpp"
#include "protocol/kube/api_status.hpp"
#include "protocol/transport/http_client.hpp"

namespace kp::kube {
namespace {

namespace bj = boost::json;

std::string percent_encode(std::string_view s) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

class query_builder {
 public:
  void add(std::string_view key, std::string_view value) {
    if (value.empty()) return;
    text_ += text_.empty() ? '?' : '&';
    text_ += key;
    text_ += '=';
    text_ += percent_encode(value);
  }
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

std::string object_path(const api_resource& r, const std::string& ns, const std::string& name,
                        const std::string& subresource) {
  std::string p = r.base_path();
  if (r.namespaced && !ns.empty()) p += "/namespaces/" + percent_encode(ns);
  p += '/';
  p += r.plural;
  if (!name.empty()) p += "/" + percent_encode(name);
  if (!subresource.empty()) p += "/" + subresource;
  return p;
}

bj::object delete_options_json(const delete_options& o) {
  bj::object body;
  body["apiVersion"] = "v1";
  body["kind"] = "DeleteOptions";
  if (o.precondition_uid || o.precondition_resource_version) {
    bj::object pre;
    if (o.precondition_uid) pre["uid"] = bj::string(*o.precondition_uid);
    if (o.precondition_resource_version)
      pre["resourceVersion"] = bj::string(*o.precondition_resource_version);
    body["preconditions"] = std::move(pre);
  }
  if (!o.propagation_policy.empty()) body["propagationPolicy"] = bj::string(o.propagation_policy);
  if (o.grace_period_seconds) body["gracePeriodSeconds"] = *o.grace_period_seconds;
  return body;
}

std::string resource_version_of(const bj::value& object) {
  const auto* o = object.if_object();
  if (!o) return "";
  auto m = o->find("metadata");
  if (m == o->end() || !m->value().is_object()) return "";
  auto rv = m->value().as_object().find("resourceVersion");
  if (rv == m->value().as_object().end() || !rv->value().is_string()) return "";
  return std::string(rv->value().as_string());
}

}  // namespace

std::string_view content_type_of(patch_type t) {
  switch (t) {
    case patch_type::merge:
      return "application/merge-patch+json";
    case patch_type::strategic:
      return "application/strategic-merge-patch+json";
    case patch_type::json:
      return "application/json-patch+json";
    case patch_type::apply:
      return "application/apply-patch+yaml";
  }
  return "application/json";
}

struct client::impl {
  boost::asio::io_context& io;
  client_config config;
  client_options options;
  std::shared_ptr<transport::http_client> http;
  std::shared_ptr<token_source> tokens;

  impl(boost::asio::io_context& context, client_config cfg, client_options opts)
      : io(context), config(std::move(cfg)), options(std::move(opts)) {}

  transport::http_request make_request(std::string method, std::string target, std::string body,
                                       std::string content_type) const {
    transport::http_request req;
    req.method = std::move(method);
    req.target = std::move(target);
    req.body = std::move(body);
    req.headers.emplace_back("Accept", "application/json");
    req.headers.emplace_back("User-Agent", options.user_agent);
    if (!content_type.empty()) req.headers.emplace_back("Content-Type", std::move(content_type));
    if (auto token = tokens->current(); !token.empty()) {
      req.headers.emplace_back("Authorization", "Bearer " + token);
    } else if (!config.username.empty()) {
      req.headers.emplace_back(
          "Authorization", "Basic " + text::base64_encode(config.username + ":" + config.password));
    }
    return req;
  }

  // Sends one request; a 401 with a token file re-reads the token and tries once more.
  static void send(const std::shared_ptr<impl>& self, std::string method, std::string target,
                   std::string body, std::string content_type, body_callback done,
                   bool eviction = false, bool retried = false) {
    auto req = self->make_request(method, target, body, content_type);
    self->http->send(self->config.server, std::move(req),
                     [self, method, target, body, content_type, done = std::move(done), eviction,
                      retried](transport::response_result r) mutable {
                       if (!r) return done(r.error());
                       if (r->status == 401 && !retried && !self->config.token_file.empty()) {
                         self->tokens->refresh();
                         return send(self, std::move(method), std::move(target), std::move(body),
                                     std::move(content_type), std::move(done), eviction, true);
                       }
                       if (r->status >= 200 && r->status < 300) return done(std::move(r->body));
                       done(api_error(r->status, r->body, eviction));
                     });
  }
};

client::client(std::unique_ptr<impl> i) : impl_(std::move(i)) {}
client::~client() = default;

result<std::shared_ptr<client>> client::create(boost::asio::io_context& io, client_config config,
                                               client_options options) {
  if (config.server.rfind("https://", 0) != 0 && config.server.rfind("http://", 0) != 0) {
    return make_error("config",
                      "server must start with https:// or http://, got \"" + config.server + "\"");
  }
  transport::client_options t;
  t.ca_pem = config.ca_pem;
  t.insecure_skip_verify = config.insecure_skip_tls_verify;
  t.client_certificate_pem = config.client_certificate_pem;
  t.client_key_pem = config.client_key_pem;
  t.connect_timeout = options.connect_timeout;
  t.request_timeout = options.request_timeout;
  t.qps = options.qps;
  t.burst = options.burst;
  t.body_limit = options.max_response_bytes;
  t.on_failure = options.on_failure;
  auto i = std::make_unique<impl>(io, std::move(config), std::move(options));
  i->tokens = std::make_shared<token_source>(i->config);
  i->http = std::make_shared<transport::http_client>(io, t);
  // The impl is shared with callbacks in flight, so it outlives a client dropped mid-request.
  std::shared_ptr<client> c(new client(std::move(i)));
  return c;
}

const client_config& client::config() const {
  return impl_->config;
}

// Callbacks in flight keep the whole client alive (the impl lives inside it).
std::shared_ptr<client::impl> client::shared_impl() {
  return {shared_from_this(), impl_.get()};
}

void client::get_raw(const api_resource& r, const object_key& key, const std::string& subresource,
                     body_callback done) {
  impl::send(shared_impl(), "GET", object_path(r, key.namespace_, key.name, subresource), "", "",
             std::move(done));
}

void client::list_raw(const api_resource& r, const std::string& namespace_, const list_options& o,
                      body_callback done) {
  query_builder q;
  q.add("labelSelector", o.label_selector);
  q.add("fieldSelector", o.field_selector);
  if (o.limit > 0) q.add("limit", std::to_string(o.limit));
  q.add("continue", o.continue_token);
  q.add("resourceVersion", o.resource_version);
  q.add("resourceVersionMatch", o.resource_version_match);
  impl::send(shared_impl(), "GET", object_path(r, namespace_, "", "") + q.str(), "", "",
             std::move(done));
}

void client::create_raw(const api_resource& r, const std::string& namespace_, std::string body,
                        body_callback done) {
  query_builder q;
  q.add("fieldManager", impl_->options.field_manager);
  impl::send(shared_impl(), "POST", object_path(r, namespace_, "", "") + q.str(), std::move(body),
             "application/json", std::move(done));
}

void client::update_raw(const api_resource& r, const object_key& key,
                        const std::string& subresource, std::string body, body_callback done) {
  query_builder q;
  q.add("fieldManager", impl_->options.field_manager);
  impl::send(shared_impl(), "PUT", object_path(r, key.namespace_, key.name, subresource) + q.str(),
             std::move(body), "application/json", std::move(done));
}

void client::patch_raw(const api_resource& r, const object_key& key, const std::string& subresource,
                       patch_type type, std::string body, body_callback done, bool force) {
  query_builder q;
  q.add("fieldManager", impl_->options.field_manager);
  if (type == patch_type::apply) q.add("force", force ? "true" : "false");
  impl::send(shared_impl(), "PATCH",
             object_path(r, key.namespace_, key.name, subresource) + q.str(), std::move(body),
             std::string(content_type_of(type)), std::move(done));
}

void client::delete_raw(const api_resource& r, const object_key& key, const delete_options& o,
                        body_callback done) {
  impl::send(shared_impl(), "DELETE", object_path(r, key.namespace_, key.name, ""),
             bj::serialize(delete_options_json(o)), "application/json", std::move(done));
}

void client::evict(const object_key& pod, const delete_options& o, status_callback done) {
  bj::object body;
  body["apiVersion"] = "policy/v1";
  body["kind"] = "Eviction";
  body["metadata"] = bj::object{{"name", pod.name}, {"namespace", pod.namespace_}};
  auto opts = delete_options_json(o);
  opts.erase("apiVersion");
  opts.erase("kind");
  body["deleteOptions"] = std::move(opts);
  static constexpr api_resource pods{"", "v1", "Pod", "pods", true};
  impl::send(
      shared_impl(), "POST", object_path(pods, pod.namespace_, pod.name, "eviction"),
      bj::serialize(body), "application/json",
      [done = std::move(done)](result<std::string> r) {
        if (!r) return done(r.error());
        done(status{});
      },
      true);
}

void client::request(std::string method, std::string target, std::string body,
                     std::string content_type, body_callback done) {
  impl::send(shared_impl(), std::move(method), std::move(target), std::move(body),
             std::move(content_type), std::move(done));
}

// ------------------------------------------------------------------------------------ watch

namespace {

// One watch stream: splits the chunked body into lines, parses each as an event, and turns
// an ERROR event into the stream's end error.
class watch_stream : public watch_handle, public std::enable_shared_from_this<watch_stream> {
 public:
  watch_stream(raw_event_callback on_event, status_callback on_end, std::size_t max_line)
      : on_event_(std::move(on_event)), on_end_(std::move(on_end)), max_line_(max_line) {}

  void attach(std::shared_ptr<transport::http_stream> s) {
    std::lock_guard lock(mutex_);
    stream_ = std::move(s);
    // Stopped, or failed before the handle arrived (the stream's callbacks may run first).
    if (stopped_ || cancel_on_attach_) stream_->cancel();
  }

  void stop() override {
    std::shared_ptr<transport::http_stream> s;
    {
      std::lock_guard lock(mutex_);
      stopped_ = true;
      s = stream_;
    }
    if (s) s->cancel();
  }

  transport::stream_callbacks callbacks() {
    auto self = shared_from_this();
    transport::stream_callbacks cb;
    cb.on_head = [self](int status, const transport::header_list&) { self->status_ = status; };
    cb.on_data = [self](std::string_view data) { self->on_data(data); };
    cb.on_end = [self](status st) { self->on_end(std::move(st)); };
    return cb;
  }

 private:
  bool stopped() {
    std::lock_guard lock(mutex_);
    return stopped_;
  }

  void on_data(std::string_view data) {
    if (status_ != 200) {
      if (error_body_.size() < 65536) error_body_.append(data);
      return;
    }
    if (error_) return;  // the stream is failing; hold nothing more
    buffer_.append(data);
    std::size_t start = 0;
    for (;;) {
      const auto nl = buffer_.find('\n', start);
      if (nl == std::string::npos) break;
      if (nl - start > max_line_) return fail_too_large();
      handle_line(std::string_view(buffer_).substr(start, nl - start));
      start = nl + 1;
    }
    buffer_.erase(0, start);
    if (buffer_.size() > max_line_) return fail_too_large();
  }

  // An event line longer than the bound: end the watch with an error instead of buffering it.
  void fail_too_large() {
    buffer_.clear();
    buffer_.shrink_to_fit();
    error_ = make_error("too_large",
                        "watch: an event line exceeds " + std::to_string(max_line_) + " bytes");
    std::shared_ptr<transport::http_stream> s;
    {
      std::lock_guard lock(mutex_);
      s = stream_;
      cancel_on_attach_ = true;
    }
    if (s) s->cancel();
  }

  void handle_line(std::string_view line) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.empty() || error_ || stopped()) return;
    // The document lives only while the callback decodes it: its nodes go to an arena over a
    // buffer kept across lines instead of one heap allocation each.
    if (!arena_buffer_) arena_buffer_ = std::make_unique<unsigned char[]>(arena_buffer_bytes);
    bj::monotonic_resource arena(arena_buffer_.get(), arena_buffer_bytes);
    boost::system::error_code ec;
    auto v = bj::parse(line, ec, &arena);
    const auto* obj = ec ? nullptr : v.if_object();
    if (!obj) {
      error_ = make_error("protocol", "watch: malformed event line");
      return;
    }
    auto t = obj->find("type");
    auto o = obj->find("object");
    if (t == obj->end() || !t->value().is_string() || o == obj->end()) {
      error_ = make_error("protocol", "watch: event without type or object");
      return;
    }
    const std::string_view type = t->value().as_string();
    if (type == "ERROR") {
      auto st = decode_value<api_status>(o->value());
      const int code = st.ok() && st->code != 0 ? static_cast<int>(st->code) : 500;
      error_ = api_error(code, bj::serialize(o->value()));
      return;
    }
    on_event_(type, o->value());
  }

  void on_end(status st) {
    if (stopped()) return;
    if (status_ != 0 && status_ != 200) return on_end_(api_error(status_, error_body_));
    if (error_) return on_end_(*error_);
    if (!buffer_.empty()) handle_line(buffer_);  // a last line without its newline
    if (error_) return on_end_(*error_);
    on_end_(std::move(st));
  }

  raw_event_callback on_event_;
  status_callback on_end_;
  std::size_t max_line_;
  std::mutex mutex_;
  bool stopped_ = false;
  bool cancel_on_attach_ = false;
  std::shared_ptr<transport::http_stream> stream_;
  // Touched only by the stream's callbacks, which the transport runs one at a time.
  int status_ = 0;
  std::string buffer_;
  std::string error_body_;
  std::optional<kp::error> error_;
  // Room for a typical object's parsed event; a larger one spills over to
  // the heap. Allocated at the first event, so a quiet stream holds none.
  static constexpr std::size_t arena_buffer_bytes = 16 * 1024;
  std::unique_ptr<unsigned char[]> arena_buffer_;
};

}  // namespace

std::shared_ptr<watch_handle> client::watch_raw(const api_resource& r,
                                                const std::string& namespace_,
                                                const watch_options& o, raw_event_callback on_event,
                                                status_callback on_end) {
  query_builder q;
  q.add("watch", "true");
  q.add("labelSelector", o.label_selector);
  q.add("fieldSelector", o.field_selector);
  q.add("resourceVersion", o.resource_version);
  if (o.allow_bookmarks) q.add("allowWatchBookmarks", "true");
  if (o.timeout_seconds > 0) q.add("timeoutSeconds", std::to_string(o.timeout_seconds));
  auto w = std::make_shared<watch_stream>(std::move(on_event), std::move(on_end),
                                          impl_->options.max_watch_line_bytes);
  auto req = impl_->make_request("GET", object_path(r, namespace_, "", "") + q.str(), "", "");
  // Data may pause for as long as the server keeps the watch open; allow that plus a margin.
  const auto idle = std::chrono::seconds(o.timeout_seconds > 0 ? o.timeout_seconds + 60 : 1900);
  w->attach(impl_->http->open_stream(impl_->config.server, std::move(req), w->callbacks(), idle));
  return w;
}

// ------------------------------------------------------------------------------- reflector

namespace {

class reflector : public watch_handle, public std::enable_shared_from_this<reflector> {
 public:
  reflector(std::shared_ptr<client> c, boost::asio::io_context& io, const api_resource& r,
            std::string ns, reflector_options o, reflector_callbacks cb)
      : client_(std::move(c)),
        timer_(io),
        resource_(r),
        namespace_(std::move(ns)),
        options_(std::move(o)),
        callbacks_(std::move(cb)),
        backoff_(options_.initial_backoff),
        random_(std::random_device{}()) {}

  void start() { relist(); }

  void stop() override {
    std::shared_ptr<watch_handle> w;
    {
      std::lock_guard lock(mutex_);
      stopped_ = true;
      w = std::move(watch_);
      timer_.cancel();
    }
    if (w) w->stop();
  }

 private:
  bool stopped() {
    std::lock_guard lock(mutex_);
    return stopped_;
  }

  void report(const kp::error& e) {
    if (callbacks_.on_error && !stopped()) callbacks_.on_error(e);
  }

  void relist() { list_page("", true); }

  void list_page(std::string continue_token, bool first) {
    if (stopped()) return;
    list_options lo;
    lo.label_selector = options_.label_selector;
    lo.field_selector = options_.field_selector;
    lo.limit = options_.page_size;
    lo.continue_token = std::move(continue_token);
    auto self = shared_from_this();
    client_->list_raw(
        resource_, namespace_, lo,
        [self, first, had_token = !lo.continue_token.empty()](result<std::string> body) {
          if (self->stopped()) return;
          if (!body) {
            self->report(body.error());
            if (had_token && body.error().code == "expired") return self->relist();
            return self->retry_later([self] { self->relist(); });
          }
          auto info = self->callbacks_.on_list_page(*body, first);
          if (!info) {
            self->report(info.error());
            return self->retry_later([self] { self->relist(); });
          }
          if (first) self->resource_version_ = info->resource_version;
          if (!info->continue_token.empty()) return self->list_page(info->continue_token, false);
          self->backoff_ = self->options_.initial_backoff;
          if (self->callbacks_.on_list_done) self->callbacks_.on_list_done();
          self->watch();
        });
  }

  void watch() {
    if (stopped()) return;
    watch_options wo;
    wo.label_selector = options_.label_selector;
    wo.field_selector = options_.field_selector;
    wo.resource_version = resource_version_;
    wo.allow_bookmarks = true;
    std::uniform_int_distribution<std::int64_t> d(
        options_.min_watch_seconds,
        std::max(options_.min_watch_seconds, options_.max_watch_seconds));
    wo.timeout_seconds = d(random_);
    events_in_stream_ = 0;
    started_ = std::chrono::steady_clock::now();
    std::uint64_t generation = 0;
    {
      std::lock_guard lock(mutex_);
      generation = ++watch_generation_;
    }
    auto self = shared_from_this();
    auto w = client_->watch_raw(
        resource_, namespace_, wo,
        [self](std::string_view type, const bj::value& object) { self->on_event(type, object); },
        [self](status st) { self->on_end(std::move(st)); });
    std::lock_guard lock(mutex_);
    if (stopped_) {
      w->stop();
    } else if (generation == watch_generation_) {
      // With several io threads this stream may already have ended and a newer one started;
      // only the newest is kept for stop().
      watch_ = std::move(w);
    }
  }

  void on_event(std::string_view type, const bj::value& object) {
    if (stopped()) return;
    ++events_in_stream_;
    backoff_ = options_.initial_backoff;
    if (auto rv = resource_version_of(object); !rv.empty()) resource_version_ = rv;
    if (type == "BOOKMARK") return;
    callbacks_.on_event(type, object);
  }

  void on_end(status st) {
    if (stopped()) return;
    if (!st) {
      if (st.error().code == "expired") {
        report(st.error());
        return relist();  // our resourceVersion is too old: start over from a fresh list
      }
      report(st.error());
      auto self = shared_from_this();
      return retry_later([self] { self->watch(); });
    }
    // The server ended the stream (its timeout): continue from the last version at once,
    // unless streams keep ending without delivering anything.
    const bool quick = std::chrono::steady_clock::now() - started_ < std::chrono::seconds(1);
    if (quick && events_in_stream_ == 0) {
      auto self = shared_from_this();
      return retry_later([self] { self->watch(); });
    }
    watch();
  }

  template <class F>
  void retry_later(F fn) {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    // Full jitter keeps many reflectors from reconnecting in step.
    std::uniform_real_distribution<double> jitter(0.5, 1.0);
    const auto wait =
        std::chrono::milliseconds(static_cast<std::int64_t>(backoff_.count() * jitter(random_)));
    backoff_ = std::min(backoff_ * 2, options_.max_backoff);
    timer_.expires_after(wait);
    timer_.async_wait([fn = std::move(fn)](const boost::system::error_code& ec) {
      if (!ec) fn();
    });
  }

  std::shared_ptr<client> client_;
  boost::asio::steady_timer timer_;
  api_resource resource_;
  std::string namespace_;
  reflector_options options_;
  reflector_callbacks callbacks_;
  std::mutex mutex_;
  bool stopped_ = false;
  std::shared_ptr<watch_handle> watch_;
  std::uint64_t watch_generation_ = 0;
  // The rest is touched by one step of the loop at a time (list, watch, timer never overlap).
  std::string resource_version_;
  std::chrono::milliseconds backoff_;
  std::mt19937_64 random_;
  std::size_t events_in_stream_ = 0;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace

std::shared_ptr<watch_handle> client::start_reflector(const api_resource& r,
                                                      const std::string& namespace_,
                                                      const reflector_options& options,
                                                      reflector_callbacks callbacks) {
  auto rf = std::make_shared<reflector>(shared_from_this(), impl_->io, r, namespace_, options,
                                        std::move(callbacks));
  rf->start();
  return rf;
}

}  // namespace kp::kube
