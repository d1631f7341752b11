#pragma once
// The Kubernetes REST client on kp::transport::http_client: get, list (selectors, pagination),
// create, update (409 -> "conflict"), patch (merge, strategic, JSON, apply), status
// subresources, delete with preconditions and propagation, eviction (429 -> "blocked_by_pdb"),
// and watches. Asynchronous: every callback runs on an io thread (actors turn them into
// messages); the client holds no CAF. Errors carry the codes listed in api_status.hpp.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "protocol/kube/api_resource.hpp"
#include "protocol/kube/autoscaling_v1beta1.hpp"
#include "protocol/kube/client_config.hpp"
#include "protocol/kube/codec.hpp"
#include "protocol/kube/meta_types.hpp"
#include "protocol/transport/failure_report.hpp"

namespace boost::asio {
class io_context;
}
namespace boost::json {
class value;
}

namespace kp::kube {

struct client_options {
  double qps = 200;  // Karpenter's KUBE_CLIENT_QPS default
  int burst = 300;   // KUBE_CLIENT_BURST
  std::string user_agent = "karpenter-proxmox/0.1 (linux/amd64)";
  std::string field_manager = "karpenter-proxmox";
  std::chrono::milliseconds request_timeout{std::chrono::seconds(30)};
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(10)};
  // Bounds on what the API server can make this process hold: the body of one answer (a list
  // page included) and one watch event line. Beyond them the request or the watch fails
  // (codes "protocol" and "too_large"); an informer then re-lists with backoff.
  std::size_t max_response_bytes = 256u << 20;
  std::size_t max_watch_line_bytes = 16u << 20;
  // Where an exception thrown by a callback is reported (stderr if unset).
  transport::failure_reporter on_failure;
};

struct list_options {
  std::string label_selector;
  std::string field_selector;
  std::int64_t limit = 0;  // 0: no paging
  std::string continue_token;
  std::string resource_version;
  std::string resource_version_match;  // NotOlderThan, Exact
};

struct watch_options {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;
  bool allow_bookmarks = true;
  std::int64_t timeout_seconds = 0;  // 0: the server's default
};

struct delete_options {
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  std::string propagation_policy;  // Background, Foreground, Orphan; "" = server default
  std::optional<std::int64_t> grace_period_seconds;
};

enum class patch_type { merge, strategic, json, apply };
std::string_view content_type_of(patch_type t);

// Where an object is: namespace "" for cluster-scoped kinds (or all namespaces on a list).
struct object_key {
  std::string namespace_;
  std::string name;
};

using body_callback = std::function<void(result<std::string>)>;
using status_callback = std::function<void(status)>;

// A running watch or informer; stop() ends it (no callbacks after stop() returns, except one
// already running).
class watch_handle {
 public:
  virtual ~watch_handle() = default;
  virtual void stop() = 0;
};

// One decoded watch event as the server sent it: ADDED, MODIFIED, DELETED, BOOKMARK.
using raw_event_callback =
    std::function<void(std::string_view type, const boost::json::value& object)>;

struct reflector_options {
  std::string label_selector;
  std::string field_selector;
  std::int64_t page_size = 500;
  std::chrono::milliseconds initial_backoff{200};
  std::chrono::milliseconds max_backoff{std::chrono::seconds(10)};
  // Each watch asks the server to end it after a random time in this range, as client-go does.
  std::int64_t min_watch_seconds = 300;
  std::int64_t max_watch_seconds = 600;
};

struct list_page_info {
  std::string resource_version;
  std::string continue_token;
};

struct reflector_callbacks {
  // One page of a (re)list; `first` starts a new list. Returns the page's resourceVersion and
  // continue token, or an error when the page cannot be decoded.
  std::function<result<list_page_info>(std::string_view body, bool first)> on_list_page;
  // The list is complete: everything since the first page is the whole state.
  std::function<void()> on_list_done;
  // ADDED, MODIFIED or DELETED (bookmarks are absorbed).
  raw_event_callback on_event;
  // Something failed; the reflector retries by itself. Optional.
  std::function<void(const kp::error&)> on_error;
};

class client : public std::enable_shared_from_this<client> {
 public:
  static result<std::shared_ptr<client>> create(boost::asio::io_context& io, client_config config,
                                                client_options options = {});
  ~client();

  const client_config& config() const;

  // ---- untyped operations: the body of a 2xx answer, or an error value.
  void get_raw(const api_resource& r, const object_key& key, const std::string& subresource,
               body_callback done);
  void list_raw(const api_resource& r, const std::string& namespace_, const list_options& options,
                body_callback done);
  void create_raw(const api_resource& r, const std::string& namespace_, std::string body,
                  body_callback done);
  void update_raw(const api_resource& r, const object_key& key, const std::string& subresource,
                  std::string body, body_callback done);
  void patch_raw(const api_resource& r, const object_key& key, const std::string& subresource,
                 patch_type type, std::string body, body_callback done, bool force = false);
  void delete_raw(const api_resource& r, const object_key& key, const delete_options& options,
                  body_callback done);
  // POST .../pods/<name>/eviction; 429 gives "blocked_by_pdb".
  void evict(const object_key& pod, const delete_options& options, status_callback done);
  // Any request (for paths the helpers do not cover).
  void request(std::string method, std::string target, std::string body, std::string content_type,
               body_callback done);

  // A single watch stream from options.resource_version. on_event gets every event (an ERROR
  // event is turned into on_end's error, e.g. "expired" for 410); on_end reports how it ended.
  std::shared_ptr<watch_handle> watch_raw(const api_resource& r, const std::string& namespace_,
                                          const watch_options& options, raw_event_callback on_event,
                                          status_callback on_end);

  // A list-then-watch loop (see informer.hpp for the typed form): lists all pages, watches
  // from the list's resourceVersion with bookmarks, re-watches from the last seen version when a
  // stream ends or breaks (with exponential backoff), and re-lists on 410 Expired.
  std::shared_ptr<watch_handle> start_reflector(const api_resource& r,
                                                const std::string& namespace_,
                                                const reflector_options& options,
                                                reflector_callbacks callbacks);

  // ---- typed operations
  template <class T>
  void get(const object_key& key, std::function<void(result<T>)> done) {
    get_raw(T::resource, key, "", typed<T>(std::move(done)));
  }
  // GET .../<name>/scale: the autoscaling/v1 Scale of an object of kind T.
  template <class T>
  void get_scale(const object_key& key, std::function<void(result<scale>)> done) {
    get_raw(T::resource, key, "scale", typed<scale>(std::move(done)));
  }
  template <class T>
  void list(const std::string& namespace_, const list_options& options,
            std::function<void(result<object_list<T>>)> done) {
    list_raw(T::resource, namespace_, options, [done = std::move(done)](result<std::string> body) {
      if (!body) return done(body.error());
      done(decode_list<T>(*body));
    });
  }
  // Follows continue tokens until the last page; an expired token restarts without paging.
  template <class T>
  void list_all(const std::string& namespace_, list_options options,
                std::function<void(result<object_list<T>>)> done);
  template <class T>
  void create(const T& object, std::function<void(result<T>)> done) {
    create_raw(T::resource, object.metadata.namespace_, encode(object), typed<T>(std::move(done)));
  }
  // PUT with the object's resourceVersion: a stale one gives "conflict".
  template <class T>
  void update(const T& object, std::function<void(result<T>)> done) {
    update_raw(T::resource, {object.metadata.namespace_, object.metadata.name}, "", encode(object),
               typed<T>(std::move(done)));
  }
  template <class T>
  void update_status(const T& object, std::function<void(result<T>)> done) {
    update_raw(T::resource, {object.metadata.namespace_, object.metadata.name}, "status",
               encode(object), typed<T>(std::move(done)));
  }
  template <class T>
  void patch(const object_key& key, patch_type type, std::string body,
             std::function<void(result<T>)> done, const std::string& subresource = "") {
    patch_raw(T::resource, key, subresource, type, std::move(body), typed<T>(std::move(done)));
  }
  template <class T>
  void remove(const object_key& key, const delete_options& options, status_callback done) {
    delete_raw(T::resource, key, options, [done = std::move(done)](result<std::string> body) {
      if (!body) return done(body.error());
      done(status{});
    });
  }
  // GET, mutate, PUT; on "conflict" starts again from a fresh GET, up to `attempts` times.
  // mutate returns false to skip the write (nothing to change).
  template <class T>
  void update_with_retry(const object_key& key, std::function<bool(T&)> mutate,
                         std::function<void(result<T>)> done, int attempts = 5);

 private:
  struct impl;
  explicit client(std::unique_ptr<impl> impl);
  std::shared_ptr<impl> shared_impl();

  template <class T>
  static body_callback typed(std::function<void(result<T>)> done) {
    return [done = std::move(done)](result<std::string> body) {
      if (!body) return done(body.error());
      done(decode<T>(*body));
    };
  }

  std::unique_ptr<impl> impl_;
};

// Follows continue tokens page after page; kept alive by the callback in flight.
template <class T>
struct list_pager : std::enable_shared_from_this<list_pager<T>> {
  std::shared_ptr<client> owner;
  std::string namespace_;
  list_options options;
  object_list<T> accumulated;
  std::function<void(result<object_list<T>>)> done;

  void next() {
    auto self = this->shared_from_this();
    owner->template list<T>(namespace_, options, [self](result<object_list<T>> page) {
      self->on_page(std::move(page));
    });
  }
  void on_page(result<object_list<T>> page) {
    if (!page) {
      if (page.error().code == "expired" && !options.continue_token.empty()) {
        // The snapshot behind the token is gone: take the whole list in one answer instead.
        accumulated = {};
        options.continue_token.clear();
        options.limit = 0;
        return next();
      }
      return done(page.error());
    }
    if (accumulated.resource_version.empty()) accumulated.resource_version = page->resource_version;
    for (auto& item : page->items) accumulated.items.push_back(std::move(item));
    if (page->continue_token.empty()) return done(std::move(accumulated));
    options.continue_token = page->continue_token;
    next();
  }
};

template <class T>
void client::list_all(const std::string& namespace_, list_options options,
                      std::function<void(result<object_list<T>>)> done) {
  if (options.limit == 0) options.limit = 500;
  auto pager = std::make_shared<list_pager<T>>();
  pager->owner = shared_from_this();
  pager->namespace_ = namespace_;
  pager->options = std::move(options);
  pager->done = std::move(done);
  pager->next();
}

template <class T>
void client::update_with_retry(const object_key& key, std::function<bool(T&)> mutate,
                               std::function<void(result<T>)> done, int attempts) {
  auto self = shared_from_this();
  get<T>(key, [self, key, mutate, done, attempts](result<T> current) mutable {
    if (!current) return done(current.error());
    T object = std::move(*current);
    if (!mutate(object)) return done(std::move(object));
    self->update<T>(object, [self, key, mutate, done, attempts](result<T> written) mutable {
      if (!written && written.error().code == "conflict" && attempts > 1) {
        return self->update_with_retry<T>(key, std::move(mutate), std::move(done), attempts - 1);
      }
      done(std::move(written));
    });
  });
}

}  // namespace kp::kube
