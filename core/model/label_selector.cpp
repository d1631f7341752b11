#include "core/model/label_selector.hpp"

#include <algorithm>

namespace kp::model {

bool matches(const label_selector& selector, const label_map& labels) {
  for (const auto& [k, v] : selector.match_labels) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  for (const auto& r : selector.match_expressions) {
    auto it = labels.find(r.key);
    bool has = it != labels.end();
    bool in = has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
    switch (r.op) {
      case selector_operator::in:
        if (!in) return false;
        break;
      case selector_operator::not_in:
        if (in) return false;
        break;
      case selector_operator::exists:
        if (!has) return false;
        break;
      case selector_operator::does_not_exist:
        if (has) return false;
        break;
      default:
        return false;  // numeric operators are invalid in label selectors
    }
  }
  return true;
}

}  // namespace kp::model
