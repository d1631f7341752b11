#include "core/scheduling/label_table.hpp"

#include <charconv>

namespace kp::scheduling {

label_id label_table::intern(std::string_view s) {
  auto it = ids_.find(s);
  if (it != ids_.end()) return it->second;
  auto id = static_cast<label_id>(strings_.size());
  strings_.emplace_back(s);
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  numbers_.push_back(ec == std::errc() && end == s.data() + s.size() && !s.empty()
                         ? std::optional<std::int64_t>(v)
                         : std::nullopt);
  ids_.emplace(std::string(s), id);
  return id;
}

label_id label_table::find(std::string_view s) const {
  auto it = ids_.find(s);
  return it == ids_.end() ? no_label : it->second;
}

}  // namespace kp::scheduling
