#pragma once
// A typed list-then-watch loop over client::start_reflector: reports the whole state after
// every (re)list and then each change, decoded as T. Callbacks run on io threads.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/kube/client.hpp"
#include "protocol/kube/codec.hpp"

namespace kp::kube {

template <class T>
struct informer_callbacks {
  // Applied to every decoded object (list items and events) before it is kept, e.g. to drop
  // fields no reader uses. Optional.
  std::function<void(T& object)> keep;
  // The complete current state after a list (the first one, and again after a 410 Expired).
  // Items are shared as they are decoded, page by page: a list of 100,000 pods is never held
  // twice (decoded and copied) while it is collected.
  std::function<void(std::vector<std::shared_ptr<const T>> items,
                     const std::string& resource_version)>
      on_replace;
  // Optional: when set, list items are handed over a page at a time as they are decoded
  // (`first`: a new list starts) instead of being collected, and on_replace ends the list with
  // no items. For kinds whose objects the receiver keeps in another form (pods).
  std::function<void(std::vector<std::shared_ptr<const T>> items, bool first)> on_list_page;
  // "ADDED", "MODIFIED" or "DELETED" with the object (its last state for DELETED).
  std::function<void(std::string_view type, T object)> on_event;
  // Failures the loop recovers from by itself (reported for logs and metrics). Optional.
  std::function<void(const kp::error&)> on_error;
};

template <class T>
std::shared_ptr<watch_handle> start_informer(client& c, const std::string& namespace_,
                                             const reflector_options& options,
                                             informer_callbacks<T> callbacks) {
  auto pending = std::make_shared<std::vector<std::shared_ptr<const T>>>();
  auto version = std::make_shared<std::string>();
  auto cb = std::make_shared<informer_callbacks<T>>(std::move(callbacks));
  reflector_callbacks rc;
  rc.on_list_page = [pending, version, cb](std::string_view body,
                                           bool first) -> result<list_page_info> {
    if (first) pending->clear();
    auto page = decode_list<T>(body);
    if (!page) return page.error();
    if (first) *version = page->resource_version;
    std::vector<std::shared_ptr<const T>> paged;
    auto& into = cb->on_list_page ? paged : *pending;
    for (auto& item : page->items) {
      if (cb->keep) cb->keep(item);
      into.push_back(std::make_shared<const T>(std::move(item)));
    }
    if (cb->on_list_page) cb->on_list_page(std::move(paged), first);
    return list_page_info{page->resource_version, page->continue_token};
  };
  rc.on_list_done = [pending, version, cb] {
    auto items = std::move(*pending);
    pending->clear();
    if (cb->on_replace) cb->on_replace(std::move(items), *version);
  };
  rc.on_event = [cb](std::string_view type, const boost::json::value& object) {
    auto decoded = decode_value<T>(object);
    if (!decoded) {
      if (cb->on_error) cb->on_error(decoded.error());
      return;
    }
    if (cb->keep) cb->keep(*decoded);
    if (cb->on_event) cb->on_event(type, std::move(*decoded));
  };
  rc.on_error = [cb](const kp::error& e) {
    if (cb->on_error) cb->on_error(e);
  };
  return c.start_reflector(T::resource, namespace_, options, std::move(rc));
}

}  // namespace kp::kube
