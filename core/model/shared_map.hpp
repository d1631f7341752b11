#pragma once
// A map with value semantics whose entries are shared between copies until one of them is
// changed (copy on write), as shared_vector.hpp is for vectors. A pod's labels are equal on the
// pods of one template and one version; with 100,000 model pods held, each distinct label map is
// kept once (protocol/kube/pod_part_models.hpp interns them) instead of once per pod, and the
// field is one pointer (shared_ref.hpp) instead of a std::map's 48 bytes. Reading looks like
// reading the std::map; changing it (operator[], insert, erase, edit()) first copies the entries
// if another copy shares them. Iteration is read-only: a loop over a pod's labels must never copy them.
#include <cstddef>
#include <initializer_list>
#include <utility>

#include "core/model/shared_ref.hpp"

namespace kp::model {

template <class Map>
class shared_map {
 public:
  using map_type = Map;
  using key_type = typename Map::key_type;
  using mapped_type = typename Map::mapped_type;
  using value_type = typename Map::value_type;
  using size_type = typename Map::size_type;
  using const_iterator = typename Map::const_iterator;
  using iterator = const_iterator;  // read-only iteration (see above)

  shared_map() = default;
  shared_map(Map entries) { assign(std::move(entries)); }  // NOLINT: implicit, as a map
  shared_map(std::initializer_list<value_type> entries) { assign(Map(entries)); }
  shared_map& operator=(Map entries) {
    assign(std::move(entries));
    return *this;
  }
  shared_map& operator=(std::initializer_list<value_type> entries) {
    assign(Map(entries));
    return *this;
  }

  const Map& items() const { return entries_ ? *entries_ : empty_entries(); }
  operator const Map&() const { return items(); }  // NOLINT: implicit

  size_type size() const { return entries_ ? entries_->size() : 0; }
  bool empty() const { return size() == 0; }
  const_iterator begin() const { return items().begin(); }
  const_iterator end() const { return items().end(); }
  const_iterator cbegin() const { return items().begin(); }
  const_iterator cend() const { return items().end(); }
  template <class K>
  const_iterator find(const K& key) const {
    return items().find(key);
  }
  template <class K>
  size_type count(const K& key) const {
    return items().count(key);
  }
  template <class K>
  bool contains(const K& key) const {
    return items().find(key) != items().end();
  }
  template <class K>
  const mapped_type& at(const K& key) const {
    auto it = items().find(key);
    if (it == items().end()) return items().at(key_type(key));  // throws as std::map::at
    return it->second;
  }

  // Changing access: the entries become this copy's own first.
  Map& edit() {
    if (!entries_) {
      entries_ = holder::make();
    } else if (entries_.use_count() > 1) {
      entries_ = holder::make(*entries_);
    }
    return *entries_;
  }
  mapped_type& operator[](const key_type& key) { return edit()[key]; }
  mapped_type& operator[](key_type&& key) { return edit()[std::move(key)]; }
  template <class... Args>
  auto insert(Args&&... args) {
    return edit().insert(std::forward<Args>(args)...);
  }
  template <class... Args>
  auto emplace(Args&&... args) {
    return edit().emplace(std::forward<Args>(args)...);
  }
  template <class... Args>
  auto insert_or_assign(Args&&... args) {
    return edit().insert_or_assign(std::forward<Args>(args)...);
  }
  template <class K>
  size_type erase(const K& key) {
    if (!contains(key)) return 0;  // no copy for nothing to erase
    return edit().erase(key);
  }
  void clear() { entries_.reset(); }

  // True when both copies hold the very same entries (not just equal ones).
  bool shares_entries_with(const shared_map& other) const { return entries_ == other.entries_; }
  // True when no other copy shares these entries.
  bool sole_holder() const { return !entries_ || entries_.use_count() == 1; }

  friend bool operator==(const shared_map& a, const shared_map& b) {
    return a.entries_ == b.entries_ || a.items() == b.items();
  }
  friend bool operator==(const shared_map& a, const Map& b) { return a.items() == b; }

 private:
  void assign(Map entries) {
    if (entries.empty()) {
      entries_.reset();
    } else {
      entries_ = holder::make(std::move(entries));
    }
  }
  static const Map& empty_entries() {
    static const Map none;
    return none;
  }

  using holder = shared_ref<Map>;
  // Null while empty: an empty map costs no allocation.
  holder entries_;
};

}  // namespace kp::model
