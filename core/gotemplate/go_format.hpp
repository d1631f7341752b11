#pragma once
// How Go's fmt and strconv spell values: %v of any value, the shortest float forms of %v and
// encoding/json, and strconv.Quote. Shared by the executor, printf, quote and the emitters.
#include <cstdint>
#include <string>
#include <string_view>

#include "core/gotemplate/value.hpp"

namespace kp::gotemplate {

// fmt's %v: "[a b]", "map[k:v]", "{f1 f2}", "<nil>" for null.
std::string format_go_value(const value& v);
// What an action prints: like %v, but a missing or nil interface value is "<no value>" (a nil
// pointer is "<nil>").
std::string format_action_value(const value& v);

// strconv.FormatFloat(f, 'g', -1, 64): shortest digits, exponent form below 1e-4 or from 1e21.
std::string format_go_float(double d);
// encoding/json's float form: like 'f', exponent form below 1e-6 or from 1e21 ("1e-07").
std::string format_json_float(double d);
// strconv.FormatFloat(f, fmt, prec, 64) for fmt in e, E, f, g, G with an explicit precision.
std::string format_float_precision(double d, char fmt, int prec);

// strconv.Quote: double-quoted, Go escapes, printable Unicode kept.
std::string go_quote(std::string_view s);
// strconv.QuoteRune for %q of an integer.
std::string go_quote_rune(std::int64_t r);
// strconv.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
bool is_go_printable(std::uint32_t cp);
// Appends the UTF-8 encoding of a code point (U+FFFD for an invalid one).
void append_utf8(std::string& out, std::uint32_t cp);
// Decodes one UTF-8 code point at s[i]; returns its length (1 and U+FFFD for a bad byte).
std::size_t decode_utf8(std::string_view s, std::size_t i, std::uint32_t& cp);

}  // namespace kp::gotemplate
