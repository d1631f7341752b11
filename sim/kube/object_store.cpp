#include "sim/kube/object_store.hpp"

#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

std::string object_key(std::string_view namespace_name, std::string_view name) {
  if (namespace_name.empty()) return std::string(name);
  std::string k;
  k.reserve(namespace_name.size() + name.size() + 1);
  k.append(namespace_name);
  k += '/';
  k.append(name);
  return k;
}

object_ptr object_store::get(const std::string& storage_key, std::string_view namespace_name,
                             std::string_view name) const {
  auto c = data_.find(storage_key);
  if (c == data_.end()) return nullptr;
  auto it = c->second.find(object_key(namespace_name, name));
  return it == c->second.end() ? nullptr : it->second;
}

const collection* object_store::objects(const std::string& storage_key) const {
  auto c = data_.find(storage_key);
  return c == data_.end() ? nullptr : &c->second;
}

object_ptr object_store::find_uid(std::string_view uid) const {
  auto it = uids_.find(std::string(uid));
  if (it == uids_.end()) return nullptr;
  auto c = data_.find(it->second.first);
  if (c == data_.end()) return nullptr;
  auto o = c->second.find(it->second.second);
  return o == c->second.end() ? nullptr : o->second;
}

object_ptr object_store::put(const std::string& storage_key, json::object object) {
  auto rv = ++rv_;
  ensure_object(object, "metadata")["resourceVersion"] = std::to_string(rv);
  auto key = object_key(meta_namespace(object), meta_name(object));
  std::string uid(meta_uid(object));
  auto stored = make_stored(std::move(object));
  auto& c = data_[storage_key];
  auto it = c.find(key);
  object_ptr previous;
  if (it == c.end()) {
    c.emplace(key, stored);
  } else {
    previous = it->second;
    it->second = stored;
  }
  if (!uid.empty()) uids_[uid] = {storage_key, key};
  hub_.publish(watch_event{rv, storage_key, previous ? "MODIFIED" : "ADDED", stored, previous});
  return stored;
}

object_ptr object_store::erase(const std::string& storage_key, std::string_view namespace_name,
                               std::string_view name) {
  auto c = data_.find(storage_key);
  if (c == data_.end()) return nullptr;
  auto it = c->second.find(object_key(namespace_name, name));
  if (it == c->second.end()) return nullptr;
  auto previous = it->second;
  auto last = previous->object;
  c->second.erase(it);
  uids_.erase(std::string(meta_uid(last)));
  auto rv = ++rv_;
  ++removals_;
  ensure_object(last, "metadata")["resourceVersion"] = std::to_string(rv);
  auto stored = make_stored(std::move(last));
  hub_.publish(watch_event{rv, storage_key, "DELETED", stored, previous});
  return stored;
}

std::size_t object_store::size() const {
  std::size_t n = 0;
  for (const auto& [k, c] : data_) n += c.size();
  return n;
}

}  // namespace kp::sim::kube
