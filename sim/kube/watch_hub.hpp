#pragma once
// Watch streams and the bounded event history behind them. Every write of the store is
// published here; each open watch gets the events of its resource, namespace and selectors as
// JSON lines, with ADDED/DELETED synthesized when an object moves into or out of a selector, as
// the API server's watch cache does. A watch from a resourceVersion older than the history
// window gets the ERROR 410 Expired event.
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "protocol/transport/http_server.hpp"
#include "sim/kube/selectors.hpp"
#include "sim/kube/stored_object.hpp"

namespace kp::sim::kube {

struct watch_event {
  std::uint64_t rv = 0;
  std::string storage_key;
  std::string type;  // ADDED, MODIFIED, DELETED
  object_ptr object;
  object_ptr previous;  // the version before a MODIFIED or DELETED
};

struct watch_spec {
  std::string storage_key;
  std::string kind;            // for bookmarks
  std::string api_version;     // for bookmarks
  std::string namespace_name;  // "" = all namespaces
  label_selector labels;
  field_selector fields;
  bool bookmarks = false;
  std::chrono::steady_clock::time_point deadline;
  // Renders an object for this watch (e.g. as a Table); empty means the object itself.
  std::function<std::string(const object_ptr&)> render;
};

class watch_hub {
 public:
  explicit watch_hub(std::size_t history_limit) : history_limit_(history_limit) {}

  void publish(watch_event event);

  // The oldest resourceVersion a watch may start from; older ones are Expired.
  std::uint64_t compacted_rv() const { return compacted_rv_; }
  void set_history_limit(std::size_t n);

  // Starts a stream: replays history after `from_rv` (when from_rv > 0), then `initial` lines
  // (synthetic ADDED events) are sent by the caller before calling this. Returns the watch id.
  std::uint64_t open(watch_spec spec, std::shared_ptr<transport::http_exchange> exchange,
                     std::uint64_t from_rv);
  // Sends one event line to a watch about to open (initial ADDED events).
  static std::string event_line(const std::string& type, const std::string& object_json);

  // Ends streams past their deadline and sends bookmarks to those who asked for them.
  void tick(std::chrono::steady_clock::time_point now, std::uint64_t current_rv,
            std::chrono::milliseconds bookmark_interval);
  void drop_all();
  // The objects of one resource changed after `rv`, each as it was at `rv` (nullptr: it did
  // not exist then), keyed like the store ("namespace/name"). Only meaningful for
  // rv >= compacted_rv(). Continued list pages are served from this snapshot.
  std::map<std::string, object_ptr> states_at(const std::string& storage_key,
                                              std::uint64_t rv) const;
  std::size_t watch_count() const { return watches_.size(); }

  // Test control: the next `n` watch or continue requests are answered 410 Expired.
  void force_expired(int n) { forced_expired_ += n; }
  bool take_forced_expired();

 private:
  struct watch {
    watch_spec spec;
    std::shared_ptr<transport::http_exchange> exchange;
    std::chrono::steady_clock::time_point last_bookmark;
  };
  bool selects(const watch_spec& spec, const object_ptr& object) const;
  void deliver(watch& w, const watch_event& e);

  std::size_t history_limit_;
  std::deque<watch_event> history_;
  std::uint64_t compacted_rv_ = 0;
  std::map<std::uint64_t, watch> watches_;
  std::uint64_t next_id_ = 1;
  int forced_expired_ = 0;
  // Close callbacks may run after the hub is gone; they check this first.
  std::shared_ptr<watch_hub*> self_ = std::make_shared<watch_hub*>(this);
};

}  // namespace kp::sim::kube
