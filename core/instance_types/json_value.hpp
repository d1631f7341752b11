#pragma once
// A small JSON reader for the few files core/ parses itself (INSTANCE_TYPES_FILE). It builds a
// plain tree; malformed input, or nesting deeper than 64 levels, is an "invalid_json" error.
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace kp::instance_types {

struct json_value {
  enum class kind { null, boolean, number, string, array, object };
  kind type = kind::null;
  bool boolean = false;
  double number = 0;
  std::string text;  // string value, or the number's literal text
  std::vector<json_value> array;
  std::vector<std::pair<std::string, json_value>> object;

  const json_value* find(std::string_view key) const;
};

result<json_value> parse_json(std::string_view text);

}  // namespace kp::instance_types
