#pragma once
// Test helper: renders with the provider functions and returns the output, or "ERROR: " and
// the error message, so expectations compare one string.
#include <string>
#include <string_view>

#include "core/gotemplate/template_set.hpp"

namespace kp::gotemplate::testing {

inline std::string render(std::string_view text, const value& data = value(),
                          const std::string& name = "t") {
  auto r = render_template(name, text, data);
  if (!r) return "ERROR: " + r.error().message;
  return *r;
}

}  // namespace kp::gotemplate::testing
