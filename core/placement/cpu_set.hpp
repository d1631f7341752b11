#pragma once
// A set of host CPU ids, as Proxmox writes them in `affinity` ("0-3,8-11") and Linux in cpulists.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace kp::placement {

class cpu_set {
 public:
  cpu_set() = default;
  static cpu_set range(int first, int last);  // inclusive
  // Parses "0-3,8-11" (also ";" as a separator, as numaN's cpus= uses). Empty is the empty set.
  static result<cpu_set> parse(std::string_view text);

  void insert(int cpu);
  void erase(int cpu);
  bool contains(int cpu) const;
  int size() const;
  bool empty() const { return size() == 0; }
  std::vector<int> members() const;  // ascending

  cpu_set operator|(const cpu_set& other) const;
  cpu_set operator&(const cpu_set& other) const;
  cpu_set operator-(const cpu_set& other) const;
  bool intersects(const cpu_set& other) const { return !(*this & other).empty(); }
  friend bool operator==(const cpu_set& a, const cpu_set& b);

  // Canonical text with ranges joined by `separator`: "0-3,8-11".
  std::string to_string(char separator = ',') const;

 private:
  void trim();
  std::vector<std::uint64_t> words_;
};

}  // namespace kp::placement
