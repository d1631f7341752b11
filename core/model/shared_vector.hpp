#pragma once
// A vector with value semantics whose items are shared between copies until one of them is
// changed (copy on write). Pods made from one template (a ReplicaSet's, a Job's) carry equal
// containers, tolerations and volumes; with 100,000 pods held, each part is kept once per
// template instead of once per pod, both in the decoded API object (protocol/kube) and in its
// scheduling model (model::pod). Reading looks like reading a std::vector; changing it
// (push_back, a non-const operator[] or iterator) first copies the items if another copy shares
// them. Copies may be read from many threads at once; only an object no other thread sees is
// changed. The field is one pointer (shared_ref.hpp).
#include <cstddef>
#include <initializer_list>
#include <utility>
#include <vector>

#include "core/model/shared_ref.hpp"

namespace kp::model {

template <class T>
class shared_vector {
 public:
  using value_type = T;
  using size_type = std::size_t;
  using iterator = typename std::vector<T>::iterator;
  using const_iterator = typename std::vector<T>::const_iterator;

  shared_vector() = default;
  shared_vector(std::vector<T> items) { assign(std::move(items)); }  // NOLINT: implicit
  shared_vector(std::initializer_list<T> items) { assign(std::vector<T>(items)); }
  shared_vector& operator=(std::vector<T> items) {
    assign(std::move(items));
    return *this;
  }
  shared_vector& operator=(std::initializer_list<T> items) {
    assign(std::vector<T>(items));
    return *this;
  }

  const std::vector<T>& items() const { return items_ ? *items_ : empty_items(); }
  operator const std::vector<T>&() const { return items(); }  // NOLINT: implicit

  size_type size() const { return items_ ? items_->size() : 0; }
  bool empty() const { return size() == 0; }
  const_iterator begin() const { return items().begin(); }
  const_iterator end() const { return items().end(); }
  const_iterator cbegin() const { return items().begin(); }
  const_iterator cend() const { return items().end(); }
  const T& operator[](size_type i) const { return items()[i]; }
  const T& at(size_type i) const { return items().at(i); }
  const T& front() const { return items().front(); }
  const T& back() const { return items().back(); }

  // Changing access: the items become this copy's own first.
  std::vector<T>& edit() {
    if (!items_) {
      items_ = holder::make();
    } else if (items_.use_count() > 1) {
      items_ = holder::make(*items_);
    }
    return *items_;
  }
  iterator begin() { return edit().begin(); }
  iterator end() { return edit().end(); }
  T& operator[](size_type i) { return edit()[i]; }
  T& front() { return edit().front(); }
  T& back() { return edit().back(); }
  void push_back(T item) { edit().push_back(std::move(item)); }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    return edit().emplace_back(std::forward<Args>(args)...);
  }
  void clear() { items_.reset(); }
  void reserve(size_type n) { edit().reserve(n); }
  void resize(size_type n) { edit().resize(n); }
  void shrink_to_fit() {
    if (items_ && items_.use_count() == 1) items_->shrink_to_fit();
  }

  // True when both copies hold the very same items (not just equal ones).
  bool shares_items_with(const shared_vector& other) const { return items_ == other.items_; }
  // Names these items without keeping them: it expires when the last copy holding them goes.
  using identity_type = typename shared_ref<std::vector<T>>::weak_ref;
  identity_type identity() const { return items_; }
  // True when no other copy shares these items.
  bool sole_holder() const { return !items_ || items_.use_count() == 1; }

  friend bool operator==(const shared_vector& a, const shared_vector& b) {
    return a.items_ == b.items_ || a.items() == b.items();
  }
  friend bool operator==(const shared_vector& a, const std::vector<T>& b) { return a.items() == b; }

 private:
  void assign(std::vector<T> items) {
    if (items.empty()) {
      items_.reset();
    } else {
      items_ = holder::make(std::move(items));
    }
  }
  static const std::vector<T>& empty_items() {
    static const std::vector<T> none;
    return none;
  }

  using holder = shared_ref<std::vector<T>>;
  // Null while empty: an empty part costs no allocation.
  holder items_;
};

}  // namespace kp::model
