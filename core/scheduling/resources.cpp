#include "core/scheduling/resources.hpp"

namespace kp::scheduling {

int resource_table::find(std::string_view name) const {
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return static_cast<int>(i);
  return -1;
}

int resource_table::id(std::string_view name) {
  int i = find(name);
  if (i >= 0) return i;
  if (names_.size() >= max_resources) return -1;
  names_.emplace_back(name);
  return static_cast<int>(names_.size() - 1);
}

resources resource_table::from(const model::resource_list& list, bool* unknown) const {
  resources r;
  for (const auto& [name, q] : list.items()) {
    int i = find(name);
    if (i >= 0)
      r.v[static_cast<std::size_t>(i)] =
          model::saturating_add(r.v[static_cast<std::size_t>(i)], q.milli);
    else if (unknown && q.milli > 0)
      *unknown = true;
  }
  return r;
}

model::resource_list resource_table::to_list(const resources& r) const {
  model::resource_list out;
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (r.v[i] != 0) out.set_milli(names_[i], r.v[i]);
  return out;
}

std::string resource_table::describe(const resources& r) const {
  std::string out = "{";
  bool first = true;
  for (std::size_t i = 0; i < names_.size(); ++i) {
    if (r.v[i] == 0) continue;
    if (!first) out += ", ";
    first = false;
    model::quantity q{r.v[i], (i == 1 || i == 3) ? model::quantity_format::binary_si
                                                 : model::quantity_format::decimal_si};
    out += names_[i] + ": " + model::to_string(q);
  }
  return out + "}";
}

}  // namespace kp::scheduling
