#pragma once
// Dense resource vectors for the hot path: a fixed array of milli-unit counts indexed by a
// per-solve resource id (0 cpu, 1 memory, 2 pods, 3 ephemeral-storage, then extended resources
// in order of first use). Fixed size keeps them on the stack and in-line in containers.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/resource_list.hpp"

namespace kp::scheduling {

inline constexpr std::size_t max_resources = 10;

struct resources {
  std::array<std::int64_t, max_resources> v{};

  // Saturating, as resource_list: a total too large to represent fits nowhere.
  resources& operator+=(const resources& o) {
    for (std::size_t i = 0; i < max_resources; ++i) v[i] = model::saturating_add(v[i], o.v[i]);
    return *this;
  }
  resources& operator-=(const resources& o) {
    for (std::size_t i = 0; i < max_resources; ++i) v[i] = model::saturating_sub(v[i], o.v[i]);
    return *this;
  }
  friend resources operator+(resources a, const resources& b) { return a += b; }
  // Every component of this is <= the one in `available`.
  bool fits(const resources& available) const {
    bool ok = true;
    for (std::size_t i = 0; i < max_resources; ++i) ok &= v[i] <= available.v[i];
    return ok;
  }
  // The same test over the first n components only: a solve knows how many resource ids it
  // uses (usually cpu, memory, pods, ephemeral-storage), and this is the hottest loop.
  bool fits(const resources& available, std::size_t n) const {
    for (std::size_t i = 0; i < n; ++i)
      if (v[i] > available.v[i]) return false;
    return true;
  }
  friend bool operator==(const resources&, const resources&) = default;
};

// Names <-> ids for one solve.
class resource_table {
 public:
  resource_table() : names_{"cpu", "memory", "pods", "ephemeral-storage"} {}
  // The id of a name, adding it if there is room; -1 when the table is full.
  int id(std::string_view name);
  int find(std::string_view name) const;
  const std::string& name(std::size_t i) const { return names_[i]; }
  std::size_t size() const { return names_.size(); }

  // Only names already in the table are converted; others are reported through `unknown`.
  resources from(const model::resource_list& list, bool* unknown = nullptr) const;
  model::resource_list to_list(const resources& r) const;
  std::string describe(const resources& r) const;

 private:
  std::vector<std::string> names_;
};

}  // namespace kp::scheduling
