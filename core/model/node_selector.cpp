#include "core/model/node_selector.hpp"

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

}  // namespace kp::model
