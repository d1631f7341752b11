#pragma once
// Interns label keys and values (and any other name the scheduler compares often) into dense
// integer ids, so requirement sets are sorted vectors of integers and comparisons never touch
// strings on the hot path. One table lives for one solve.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kp::scheduling {

using label_id = std::uint32_t;
inline constexpr label_id no_label = 0xffffffffu;

class label_table {
 public:
  label_id intern(std::string_view s);
  // no_label when the string was never interned.
  label_id find(std::string_view s) const;
  const std::string& str(label_id id) const { return strings_[id]; }
  // The value as a non-negative-or-negative integer, for Gt/Lt/Gte/Lte; nullopt if not one.
  std::optional<std::int64_t> number(label_id id) const { return numbers_[id]; }
  std::size_t size() const { return strings_.size(); }

 private:
  struct hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, label_id, hash, std::equal_to<>> ids_;
  std::vector<std::string> strings_;
  std::vector<std::optional<std::int64_t>> numbers_;
};

}  // namespace kp::scheduling
