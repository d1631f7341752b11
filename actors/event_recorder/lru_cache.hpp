#pragma once
// A bounded map that forgets the least recently used key first: the recorder's memory of recent
// Events and of per-object token buckets must not grow with the number of objects ever seen.
#include <cstddef>
#include <list>
#include <string>
#include <unordered_map>
#include <utility>

namespace kp::actors::event_recorder {

template <class V>
class lru_cache {
 public:
  explicit lru_cache(std::size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

  // The value under `key`, marked as just used; nullptr when absent.
  V* touch(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return &it->second->second;
  }
  // The value without changing its age; nullptr when absent.
  V* peek(const std::string& key) {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &it->second->second;
  }
  // Inserts or replaces, as the most recently used; evicts the oldest beyond the capacity.
  V& put(const std::string& key, V value) {
    if (auto* existing = touch(key)) {
      *existing = std::move(value);
      return *existing;
    }
    order_.emplace_front(key, std::move(value));
    index_[key] = order_.begin();
    while (order_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
    return order_.front().second;
  }
  void erase(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return;
    order_.erase(it->second);
    index_.erase(it);
  }
  std::size_t size() const { return order_.size(); }
  std::size_t capacity() const { return capacity_; }

 private:
  using entry = std::pair<std::string, V>;
  std::size_t capacity_;
  std::list<entry> order_;  // front: most recently used
  std::unordered_map<std::string, typename std::list<entry>::iterator> index_;
};

}  // namespace kp::actors::event_recorder
