#include "sim/kube/watch_hub.hpp"

#include <boost/json/serialize.hpp>
#include <vector>

#include "sim/kube/json_util.hpp"
#include "sim/kube/object_store.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

object_ptr make_stored(json::object object) {
  auto s = std::make_shared<stored_object>();
  s->text = json::serialize(object);
  s->object = std::move(object);
  return s;
}

std::string watch_hub::event_line(const std::string& type, const std::string& object_json) {
  std::string line;
  line.reserve(object_json.size() + type.size() + 24);
  line += "{\"type\":\"";
  line += type;
  line += "\",\"object\":";
  line += object_json;
  line += "}\n";
  return line;
}

bool watch_hub::selects(const watch_spec& spec, const object_ptr& object) const {
  if (!object) return false;
  const auto& o = object->object;
  if (!spec.namespace_name.empty() && meta_namespace(o) != spec.namespace_name) return false;
  if (!spec.labels.empty() && !spec.labels.matches(object_at(o, {"metadata", "labels"})))
    return false;
  return spec.fields.matches(o);
}

void watch_hub::deliver(watch& w, const watch_event& e) {
  bool now_in = e.type != "DELETED" && selects(w.spec, e.object);
  bool was_in = e.type == "MODIFIED" ? selects(w.spec, e.previous) : false;
  std::string type;
  if (e.type == "ADDED") {
    if (!now_in) return;
    type = "ADDED";
  } else if (e.type == "DELETED") {
    if (!selects(w.spec, e.object)) return;
    type = "DELETED";
  } else if (now_in && was_in) {
    type = "MODIFIED";
  } else if (now_in) {
    type = "ADDED";
  } else if (was_in) {
    type = "DELETED";
  } else {
    return;
  }
  w.exchange->write(event_line(type, w.spec.render ? w.spec.render(e.object) : e.object->text));
}

void watch_hub::publish(watch_event event) {
  for (auto& [id, w] : watches_) {
    if (w.spec.storage_key == event.storage_key && w.exchange->open()) deliver(w, event);
  }
  history_.push_back(std::move(event));
  while (history_.size() > history_limit_) {
    compacted_rv_ = history_.front().rv;
    history_.pop_front();
  }
}

void watch_hub::set_history_limit(std::size_t n) {
  history_limit_ = n;
  while (history_.size() > history_limit_) {
    compacted_rv_ = history_.front().rv;
    history_.pop_front();
  }
}

std::uint64_t watch_hub::open(watch_spec spec, std::shared_ptr<transport::http_exchange> exchange,
                              std::uint64_t from_rv) {
  auto id = next_id_++;
  watch w{std::move(spec), exchange, std::chrono::steady_clock::now()};
  if (from_rv > 0) {
    // History is ordered by rv, so find the first event after from_rv by binary search.
    auto it = std::upper_bound(history_.begin(), history_.end(), from_rv,
                               [](std::uint64_t rv, const watch_event& e) { return rv < e.rv; });
    for (; it != history_.end(); ++it)
      if (it->storage_key == w.spec.storage_key) deliver(w, *it);
  }
  watches_.emplace(id, std::move(w));
  std::weak_ptr<watch_hub*> self = self_;
  exchange->on_close([self, id] {
    if (auto hub = self.lock()) (*hub)->watches_.erase(id);
  });
  return id;
}

void watch_hub::tick(std::chrono::steady_clock::time_point now, std::uint64_t current_rv,
                     std::chrono::milliseconds bookmark_interval) {
  std::vector<std::uint64_t> ended;
  for (auto& [id, w] : watches_) {
    if (!w.exchange->open() || now >= w.spec.deadline) {
      ended.push_back(id);
      continue;
    }
    if (w.spec.bookmarks && now - w.last_bookmark >= bookmark_interval) {
      w.last_bookmark = now;
      json::object obj{{"kind", w.spec.kind},
                       {"apiVersion", w.spec.api_version},
                       {"metadata", json::object{{"resourceVersion", std::to_string(current_rv)}}}};
      w.exchange->write(event_line("BOOKMARK", json::serialize(obj)));
    }
  }
  for (auto id : ended) {
    auto it = watches_.find(id);
    if (it == watches_.end()) continue;
    auto ex = it->second.exchange;
    watches_.erase(it);
    ex->finish();
  }
}

std::map<std::string, object_ptr> watch_hub::states_at(const std::string& storage_key,
                                                       std::uint64_t rv) const {
  std::map<std::string, object_ptr> out;
  auto first = std::upper_bound(history_.begin(), history_.end(), rv,
                                [](std::uint64_t r, const watch_event& e) { return r < e.rv; });
  // Newest first, so the last assignment per key is the state before its oldest later change.
  for (auto it = history_.end(); it != first;) {
    --it;
    if (it->storage_key != storage_key || !it->object) continue;
    auto key = object_key(meta_namespace(it->object->object), meta_name(it->object->object));
    out[key] = it->type == "ADDED" ? nullptr : it->previous;
  }
  return out;
}

void watch_hub::drop_all() {
  auto all = std::move(watches_);
  watches_.clear();
  for (auto& [id, w] : all) w.exchange->finish();
}

bool watch_hub::take_forced_expired() {
  if (forced_expired_ <= 0) return false;
  --forced_expired_;
  return true;
}

}  // namespace kp::sim::kube
