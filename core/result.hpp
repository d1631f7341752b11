#pragma once
// Errors as values: a result<T> holds either a T or an error naming what went wrong and why.
// Used wherever input can be bad (settings, manifests, API replies); exceptions never cross
// actor boundaries.
#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace kp {

struct error {
  std::string code;     // stable, machine-readable: "invalid_quantity", "timeout", "conflict", ...
  std::string message;  // for a person: names the field or value and the reason

  friend bool operator==(const error&, const error&) = default;
};

inline error make_error(std::string code, std::string message) {
  return error{std::move(code), std::move(message)};
}

template <class T>
class [[nodiscard]] result {
 public:
  result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  result(kp::error e) : v_(std::in_place_index<1>, std::move(e)) {}      // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const kp::error& error() const {
    assert(!ok());
    return std::get<1>(v_);
  }

  T value_or(T fallback) const { return ok() ? std::get<0>(v_) : std::move(fallback); }

 private:
  std::variant<T, kp::error> v_;
};

// result<void>: success or an error.
template <>
class [[nodiscard]] result<void> {
 public:
  result() = default;
  result(kp::error e) : err_(std::move(e)), failed_(true) {}  // NOLINT
  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const kp::error& error() const {
    assert(failed_);
    return err_;
  }

 private:
  kp::error err_;
  bool failed_ = false;
};

using status = result<void>;

}  // namespace kp
