#pragma once
// Builds template trees from text with Go's grammar and parse errors
// ("template: NAME:LINE: unexpected \"}\" in operand"). Function names are checked at parse
// time, as Go does, against the names the caller will provide.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "core/gotemplate/ast.hpp"
#include "core/result.hpp"

namespace kp::gotemplate {

struct parse_output {
  // The main template (named as given) and every {{define}}/{{block}} met in the text.
  std::map<std::string, template_tree> trees;
};

// error code "template_parse".
result<parse_output> parse_template(const std::string& name, std::string_view text,
                                    const std::function<bool(std::string_view)>& has_function);

// "template: NAME:LINE: " for the byte offset pos of text.
std::string parse_error_prefix(std::string_view name, std::string_view text, std::size_t pos);
// Line (1-based) and column (0-based byte offset in the line) of pos, as Go reports them.
std::pair<int, int> line_and_column(std::string_view text, std::size_t pos);

}  // namespace kp::gotemplate
