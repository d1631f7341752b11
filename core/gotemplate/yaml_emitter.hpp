#pragma once
// YAML text as gopkg.in/yaml.v3's encoder writes it (what the Go provider's toYaml and
// toYamlPretty call): block style, sequences indented under their key, map keys in yaml.v3's
// natural order, records in field order with their YAML names and omitempty, strings quoted only
// when they would read back as something else (double quotes) or are not plain-safe (single
// quotes), multi-line strings as literal blocks (|, |-, |+).
#include <string>
#include <string_view>

#include "core/gotemplate/value.hpp"

namespace kp::gotemplate {

struct yaml_options {
  int indent = 4;  // yaml.v3's default; the Go provider's toYamlPretty sets 2
};

// The document with its final newline.
std::string to_yaml(const value& v, yaml_options options = {});

// yaml.v3's key order: letters after other characters, digit runs compared as numbers.
bool yaml_key_less(std::string_view a, std::string_view b);

}  // namespace kp::gotemplate
