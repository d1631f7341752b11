#include "core/model/node_selector.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace kp::model {
namespace {
constexpr std::array<const char*, 8> kNames = {"In", "NotIn", "Exists", "DoesNotExist",
                                               "Gt", "Lt",    "Gte",    "Lte"};
}

std::optional<selector_operator> parse_selector_operator(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (name == kNames[i]) return static_cast<selector_operator>(i);
  return std::nullopt;
}

const char* to_string(selector_operator op) {
  return kNames[static_cast<std::size_t>(op)];
}

bool allows_value(const std::vector<node_selector_requirement>& requirements, std::string_view key,
                  const std::string& value) {
  for (const auto& r : requirements) {
    if (r.key != key) continue;
    bool listed = std::find(r.values.begin(), r.values.end(), value) != r.values.end();
    if (r.op == selector_operator::in && !listed) return false;
    if (r.op == selector_operator::not_in && listed) return false;
    if (r.op == selector_operator::does_not_exist) return false;
  }
  return true;
}

}  // namespace kp::model
