#pragma once
// The constants of template text, read as Go reads them: quoted and raw strings
// (strconv.Unquote), character constants, and numbers in every base with '_' separators.
#include <string>
#include <string_view>

#include "core/gotemplate/value.hpp"

namespace kp::gotemplate {

// "..." with Go escapes, '...' (one rune) or `...` (raw, carriage returns dropped); false on a
// malformed literal.
bool unquote_literal(std::string_view quoted, std::string& out);
// An integer (0x, 0o, 0b, leading-zero octal, '_') as int64, or a float as double; false when
// the text is not a number Go accepts (complex numbers included).
bool parse_number_literal(std::string_view text, value& out);

}  // namespace kp::gotemplate
