#pragma once
// Reading fields of Kubernetes and Proxmox replies by path: a missing field, or one of another
// type, reads as empty (or the fallback), never as an error.
#include <boost/json.hpp>
#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace kp::lab {

// The value at `path` ({"status", "phase"}), or nullptr when a step is missing or not an object.
inline const boost::json::value* value_at(const boost::json::object& o,
                                          std::initializer_list<const char*> path) {
  const boost::json::object* cur = &o;
  const boost::json::value* v = nullptr;
  for (auto key : path) {
    if (cur == nullptr) return nullptr;
    v = cur->if_contains(key);
    if (v == nullptr) return nullptr;
    cur = v->if_object();
  }
  return v;
}

// The string at `path`, or empty.
inline std::string_view string_at(const boost::json::object& o,
                                  std::initializer_list<const char*> path) {
  const auto* v = value_at(o, path);
  return v != nullptr && v->is_string() ? std::string_view(v->as_string()) : std::string_view();
}

// The integer at `path`, or `fallback`.
inline std::int64_t int_at(const boost::json::object& o, std::initializer_list<const char*> path,
                           std::int64_t fallback = 0) {
  const auto* v = value_at(o, path);
  if (v != nullptr && v->is_int64()) return v->as_int64();
  if (v != nullptr && v->is_uint64()) return static_cast<std::int64_t>(v->as_uint64());
  return fallback;
}

// Whether a field is present at `path` and not null (metadata.deletionTimestamp).
inline bool has_at(const boost::json::object& o, std::initializer_list<const char*> path) {
  const auto* v = value_at(o, path);
  return v != nullptr && !v->is_null();
}

}  // namespace kp::lab
