#pragma once
// Go's fmt.Sprintf, Sprint and Sprintln for template values: the verbs %v %s %q %d %x %X %o %O
// %b %c %U %e %E %f %F %g %G %t %% with flags (+ - # 0 space), width and precision (also *),
// and fmt's in-band errors ("%!d(string=a)", "%!s(MISSING)", "%!(EXTRA int=1)").
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/gotemplate/value.hpp"

namespace kp::gotemplate {

// The template's printf: nullopt, before building it, when the result would exceed max_bytes
// (a width or precision reaches ten million, as in fmt, and a list repeats it per element).
std::optional<std::string> go_sprintf(std::string_view format, std::span<const value> args,
                                      std::size_t max_bytes);
// For messages whose size the caller knows to be small.
std::string go_sprintf(std::string_view format, std::span<const value> args);
// fmt.Sprint: spaces between operands when neither is a string. nullopt once the result would
// exceed max_bytes, as below: a template can pass one large operand any number of times.
std::optional<std::string> go_sprint(std::span<const value> args, std::size_t max_bytes);
// fmt.Sprintln: spaces between all operands and a final newline.
std::optional<std::string> go_sprintln(std::span<const value> args, std::size_t max_bytes);

}  // namespace kp::gotemplate
