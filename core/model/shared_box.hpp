#pragma once
// A value that is usually its type's empty default, held in one pointer: null while it is that
// default, else a block shared between copies until one of them is changed (copy on write, as
// shared_vector.hpp). For fields of model pods that few pods set (a RuntimeClass's overhead, a
// priority class name): 100,000 pods carry the field, a few hold a value. Reads as the const T it
// holds; changing it goes through edit() or an assignment.
#include <utility>

#include "core/model/shared_ref.hpp"

namespace kp::model {

template <class T>
class shared_box {
 public:
  shared_box() = default;
  shared_box(T value) { assign(std::move(value)); }  // NOLINT: implicit, as the value
  shared_box& operator=(T value) {
    assign(std::move(value));
    return *this;
  }

  const T& get() const { return value_ ? *value_ : empty_value(); }
  operator const T&() const { return get(); }  // NOLINT: implicit
  bool empty() const { return !value_; }

  // Changing access: the value becomes this copy's own first.
  T& edit() {
    if (!value_) {
      value_ = holder::make();
    } else if (value_.use_count() > 1) {
      value_ = holder::make(*value_);
    }
    return *value_;
  }

  friend bool operator==(const shared_box& a, const shared_box& b) {
    return a.value_ == b.value_ || a.get() == b.get();
  }
  friend bool operator==(const shared_box& a, const T& b) { return a.get() == b; }

 private:
  using holder = shared_ref<T>;
  void assign(T value) {
    if (value == empty_value()) {
      value_.reset();
    } else {
      value_ = holder::make(std::move(value));
    }
  }
  static const T& empty_value() {
    static const T none{};
    return none;
  }

  holder value_;  // null while the value is T{}
};

}  // namespace kp::model
