#pragma once
// The generic object store: every object of every resource, keyed by storage key
// ("group/plural") and then "namespace/name" (or "name" when cluster-scoped), ordered so lists
// page by key. One global resourceVersion counter, as etcd has; each write publishes a watch
// event. It enforces nothing about the objects: API semantics live in operations.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>

#include "sim/kube/stored_object.hpp"
#include "sim/kube/watch_hub.hpp"

namespace kp::sim::kube {

using collection = std::map<std::string, object_ptr, std::less<>>;

std::string object_key(std::string_view namespace_name, std::string_view name);

class object_store {
 public:
  explicit object_store(watch_hub& hub) : hub_(hub) {}

  std::uint64_t current_rv() const { return rv_; }
  object_ptr get(const std::string& storage_key, std::string_view namespace_name,
                 std::string_view name) const;
  // nullptr when the resource has no objects yet.
  const collection* objects(const std::string& storage_key) const;
  // Where an object with this uid lives, or nullptr.
  object_ptr find_uid(std::string_view uid) const;

  // Stores a new or changed object; sets metadata.resourceVersion and publishes ADDED/MODIFIED.
  object_ptr put(const std::string& storage_key, boost::json::object object);
  // Removes an object; publishes DELETED carrying its last state with a fresh resourceVersion.
  object_ptr erase(const std::string& storage_key, std::string_view namespace_name,
                   std::string_view name);
  // Number of removals so far (lets the garbage collector skip idle passes).
  std::uint64_t removals() const { return removals_; }
  std::size_t size() const;
  const std::unordered_map<std::string, collection>& all() const { return data_; }

 private:
  watch_hub& hub_;
  std::uint64_t rv_ = 0;
  std::uint64_t removals_ = 0;
  std::unordered_map<std::string, collection> data_;
  std::unordered_map<std::string, std::pair<std::string, std::string>> uids_;
};

}  // namespace kp::sim::kube
