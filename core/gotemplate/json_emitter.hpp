#pragma once
// JSON text as Go's encoding/json writes it: map keys sorted, records in field order with their
// JSON names and omitempty, <, > and & escaped as \u003c..., floats in json's shortest form.
#include <string>

#include "core/gotemplate/value.hpp"

namespace kp::gotemplate {

// json.Marshal.
std::string to_json(const value& v);
// json.MarshalIndent(v, "", "  ").
std::string to_pretty_json(const value& v);

}  // namespace kp::gotemplate
