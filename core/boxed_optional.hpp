#pragma once
// An optional whose value lives on the heap. A record that only sometimes holds a large value
// costs one pointer while it holds none, and moving the record moves a pointer. The region keeps
// one record per VM (4,100 in bench-controller-scale) and builds a new set at every inventory
// refresh, while a VM config takes about 1 KB inline. Copies copy the value; the interface is
// the part of std::optional that such records use.
#include <memory>
#include <optional>
#include <utility>

namespace kp {

template <class T>
class boxed_optional {
 public:
  boxed_optional() = default;
  boxed_optional(std::nullopt_t) {}  // NOLINT: converts as std::optional does
  boxed_optional(T value)            // NOLINT: converts as std::optional does
      : value_(std::make_unique<T>(std::move(value))) {}
  boxed_optional(const boxed_optional& other)
      : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}
  boxed_optional(boxed_optional&&) noexcept = default;

  boxed_optional& operator=(const boxed_optional& other) {
    if (this != &other) value_ = other.value_ ? std::make_unique<T>(*other.value_) : nullptr;
    return *this;
  }
  boxed_optional& operator=(boxed_optional&&) noexcept = default;
  boxed_optional& operator=(std::nullopt_t) {
    value_.reset();
    return *this;
  }
  boxed_optional& operator=(T value) {
    if (value_) {
      *value_ = std::move(value);
    } else {
      value_ = std::make_unique<T>(std::move(value));
    }
    return *this;
  }

  bool has_value() const { return value_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  T* operator->() { return value_.get(); }
  const T* operator->() const { return value_.get(); }
  T value_or(T fallback) const { return value_ ? *value_ : std::move(fallback); }
  void reset() { value_.reset(); }

  friend bool operator==(const boxed_optional& a, const boxed_optional& b) {
    if (!a || !b) return !a && !b;
    return *a == *b;
  }

 private:
  std::unique_ptr<T> value_;
};

}  // namespace kp
