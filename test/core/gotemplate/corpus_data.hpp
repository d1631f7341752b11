#pragma once
// Template data for the differential corpus: JSON read into kp::gotemplate::value exactly as
// go_reference/data.go reads it into Go values (objects are map[string]interface{}, numbers
// without "." or exponent are int, {"$strings": [...]} is []string, {"$stringmap": {...}} is
// map[string]string, {"$struct": [[name, value, tag]...]} a struct with yaml/json tags,
// {"$ptr": v} and {"$nilptr": "T"} pointers, {"$int64": n} etc. sized integers).
#include <string>

#include "core/gotemplate/value.hpp"
#include "core/result.hpp"

namespace kp::gotemplate::testing {

result<value> parse_corpus_data(const std::string& json);

}  // namespace kp::gotemplate::testing
