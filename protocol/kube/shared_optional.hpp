#pragma once
// An optional value shared between copies until one of them is changed (copy on write): the
// counterpart of shared_vector.hpp for a pod's affinity, which pods of one template carry
// equal. It costs one pointer while absent (std::optional<affinity> costs 184 bytes in every
// pod). Reading looks like reading a std::optional; changing it through a non-const `->` or `*`
// first copies the value if another copy shares it.
#include <memory>
#include <optional>
#include <utility>

namespace kp::kube {

template <class T>
class shared_optional {
 public:
  using value_type = T;

  shared_optional() = default;
  shared_optional(std::nullopt_t) {}                                           // NOLINT: implicit
  shared_optional(T value) : value_(std::make_shared<T>(std::move(value))) {}  // NOLINT: implicit
  shared_optional& operator=(std::nullopt_t) {
    value_.reset();
    return *this;
  }
  shared_optional& operator=(T value) {
    value_ = std::make_shared<T>(std::move(value));
    return *this;
  }

  bool has_value() const { return value_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  const T& operator*() const { return *value_; }
  const T* operator->() const { return value_.get(); }
  const T& value() const {
    if (!value_) throw std::bad_optional_access();
    return *value_;
  }

  // Changing access: the value becomes this copy's own first.
  T& edit() {
    if (value_ && value_.use_count() > 1) value_ = std::make_shared<T>(*value_);
    return *value_;
  }
  T& operator*() { return edit(); }
  T* operator->() { return &edit(); }
  template <class... Args>
  T& emplace(Args&&... args) {
    value_ = std::make_shared<T>(std::forward<Args>(args)...);
    return *value_;
  }
  void reset() { value_.reset(); }

  // True when both copies hold the very same value (not just an equal one).
  bool shares_value_with(const shared_optional& other) const { return value_ == other.value_; }
  // True when no other copy shares this value.
  bool sole_holder() const { return !value_ || value_.use_count() == 1; }

  friend bool operator==(const shared_optional& a, const shared_optional& b) {
    if (a.value_ == b.value_) return true;
    if (!a.value_ || !b.value_) return false;
    return *a.value_ == *b.value_;
  }

 private:
  std::shared_ptr<T> value_;
};

}  // namespace kp::kube
