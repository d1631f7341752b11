#include "core/model/resource_list.hpp"

#include <algorithm>

namespace kp::model {

std::int64_t resource_list::milli(std::string_view name) const {
  auto it = items_.find(name);
  return it == items_.end() ? 0 : it->second.milli;
}

void resource_list::set_milli(std::string_view name, std::int64_t m) {
  auto it = items_.find(name);
  if (it == items_.end()) {
    // Memory-like resources print in binary form, everything else in decimal.
    bool binary = name == resource_names::memory || name == resource_names::ephemeral_storage ||
                  name.starts_with("hugepages-");
    items_.emplace(std::string(name),
                   quantity{m, binary ? quantity_format::binary_si : quantity_format::decimal_si});
  } else {
    it->second.milli = m;
  }
}

resource_list& resource_list::operator+=(const resource_list& other) {
  add_checked(other);
  return *this;
}

bool resource_list::add_checked(const resource_list& other, std::string* overflowed) {
  bool ok = true;
  for (const auto& [name, q] : other.items_) {
    auto it = items_.find(name);
    if (it == items_.end()) {
      items_.emplace(name, q);
    } else if (!checked_add(it->second.milli, q.milli, it->second.milli) && ok) {
      ok = false;
      if (overflowed) *overflowed = name;
    }
  }
  return ok;
}

resource_list& resource_list::operator-=(const resource_list& other) {
  for (const auto& [name, q] : other.items_) {
    auto it = items_.find(name);
    if (it == items_.end())
      items_.emplace(name, quantity{saturating_sub(0, q.milli), q.format});
    else
      it->second.milli = saturating_sub(it->second.milli, q.milli);
  }
  return *this;
}

resource_list resource_list::max(const resource_list& a, const resource_list& b) {
  resource_list out = a;
  for (const auto& [name, q] : b.items_) {
    auto it = out.items_.find(name);
    if (it == out.items_.end())
      out.items_.emplace(name, q);
    else
      it->second.milli = std::max(it->second.milli, q.milli);
  }
  return out;
}

bool resource_list::fits_in(const resource_list& available) const {
  for (const auto& [name, q] : items_)
    if (q.milli > 0 && q.milli > available.milli(name)) return false;
  return true;
}

result<resource_list> parse_resource_list(const std::map<std::string, std::string>& raw) {
  resource_list out;
  for (const auto& [name, text] : raw) {
    auto q = parse_quantity(text);
    if (!q) return make_error("invalid_quantity", "resource " + name + ": " + q.error().message);
    out.set(name, *q);
  }
  return out;
}

}  // namespace kp::model
