#pragma once
// Internal: the groups that make up provider_functions(), one file per concern.
#include "core/gotemplate/function_table.hpp"

namespace kp::gotemplate {

// default, coalesce, ternary, empty, hasKey, hasTag, get, getValue.
void add_logic_functions(function_table& t);
// indent, nindent, quote, upper, lower, trim, trimSuffix, trimPrefix, split, join, replace,
// contains, hasPrefix, hasSuffix.
void add_string_functions(function_table& t);
// regexFind, regexFindString, regexReplaceAll.
void add_regex_functions(function_table& t);
// toJson, toPrettyJson, toYaml, toYamlPretty, b64enc, b64dec.
void add_encoding_functions(function_table& t);
// cidrhost, cidrslaac.
void add_network_functions(function_table& t);

}  // namespace kp::gotemplate
