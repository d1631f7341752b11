#pragma once
// A Kubernetes ResourceList: resource name -> quantity. Well-known names are cpu, memory, pods
// and ephemeral-storage; any other name (nvidia.com/gpu, hugepages-2Mi) is an extended resource.
#include <map>
#include <string>
#include <string_view>

#include "core/model/quantity.hpp"

namespace kp::model {

namespace resource_names {
inline constexpr std::string_view cpu = "cpu";
inline constexpr std::string_view memory = "memory";
inline constexpr std::string_view pods = "pods";
inline constexpr std::string_view ephemeral_storage = "ephemeral-storage";
inline constexpr std::string_view nodes = "nodes";  // NodePool limits only
}  // namespace resource_names

class resource_list {
 public:
  using map_type = std::map<std::string, quantity, std::less<>>;

  resource_list() = default;
  resource_list(std::initializer_list<map_type::value_type> items) : items_(items) {}

  // Milli-units of a resource, 0 when absent.
  std::int64_t milli(std::string_view name) const;
  bool has(std::string_view name) const { return items_.find(name) != items_.end(); }
  void set(std::string_view name, quantity q) { items_.insert_or_assign(std::string(name), q); }
  void set_milli(std::string_view name, std::int64_t m);

  // Element-wise arithmetic; absent entries count as zero. The result keeps the format of the
  // left operand where present. Sums saturate at the bounds of 64-bit milli-units (see
  // saturating_add), so an unrepresentable total never wraps into a small or negative one.
  resource_list& operator+=(const resource_list& other);
  resource_list& operator-=(const resource_list& other);
  // As +=; returns false when some sum did not fit (it saturated), naming the first such
  // resource in `overflowed` when given.
  bool add_checked(const resource_list& other, std::string* overflowed = nullptr);
  // Element-wise maximum (used for init containers).
  static resource_list max(const resource_list& a, const resource_list& b);

  // True when every resource requested here is available in `available` (absent means 0).
  bool fits_in(const resource_list& available) const;

  bool empty() const { return items_.empty(); }
  const map_type& items() const { return items_; }
  map_type& items() { return items_; }

  friend bool operator==(const resource_list& a, const resource_list& b) = default;

 private:
  map_type items_;
};

// Parses {name: "quantity"} pairs; the first malformed value is an error naming its resource.
result<resource_list> parse_resource_list(const std::map<std::string, std::string>& raw);

}  // namespace kp::model
