#pragma once
// std::optional members in inspect() (CAF 0.17 knows only caf::optional): list a member as
// `optional_field(x.member)`; saved as a flag and the value, loaded back the same way, printed
// like caf::optional.
#include <optional>
#include <type_traits>
#include <utility>

#include <caf/detail/scope_guard.hpp>

namespace kp::protocol {

template <class T>
struct optional_ref {
  std::optional<T>& value;
};

template <class T>
optional_ref<T> optional_field(std::optional<T>& value) {
  return {value};
}

// The value half while loading: present only when the flag said so.
template <class T>
struct optional_slot {
  bool& present;
  T& storage;
  template <class Inspector>
  friend typename Inspector::result_type inspect(Inspector& f, optional_slot& x) {
    return x.present ? f(x.storage) : f();
  }
};

template <class Inspector, class T>
typename std::enable_if<Inspector::reads_state, typename Inspector::result_type>::type inspect(
    Inspector& f, optional_ref<T>& x) {
  return x.value ? f(true, *x.value) : f(false);
}

template <class Inspector, class T>
typename std::enable_if<Inspector::writes_state, typename Inspector::result_type>::type inspect(
    Inspector& f, optional_ref<T>& x) {
  bool present = false;
  T storage{};
  optional_slot<T> slot{present, storage};
  auto guard = caf::detail::make_scope_guard([&] {
    if (present) {
      x.value = std::move(storage);
    } else {
      x.value.reset();
    }
  });
  return f(present, slot);
}

}  // namespace kp::protocol
