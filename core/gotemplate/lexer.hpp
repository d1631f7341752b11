#pragma once
// Splits template text into tokens as Go's text/template lexer does: text between actions,
// delimiters with their trim markers applied to the neighbouring text, and the words inside an
// action. A lexing error ends the token stream with an error token, so the parser reports it
// only when it gets there (Go's order of errors).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kp::gotemplate {

enum class token_kind {
  text,
  left_delim,
  right_delim,
  space,
  identifier,  // a function name
  field,       // .Name
  variable,    // $ or $name
  string,      // "quoted"
  raw_string,  // `raw`
  char_constant,
  number,
  boolean,
  nil,
  dot,
  pipe,
  left_paren,
  right_paren,
  declare,  // :=
  assign,   // =
  comma,
  character,  // any other printable ASCII character; the parser rejects it in context
  keyword_block,
  keyword_break,
  keyword_continue,
  keyword_define,
  keyword_else,
  keyword_end,
  keyword_if,
  keyword_range,
  keyword_template,
  keyword_with,
  eof,
  error,
};

struct token {
  token_kind kind;
  std::string_view text;  // for error tokens, empty; see message
  std::size_t pos;        // byte offset in the template text
  std::string message;    // error tokens only
};

// Go's rendering of a token in "unexpected X in Y" messages.
std::string describe_token(const token& t);

std::vector<token> lex_template(std::string_view text);

}  // namespace kp::gotemplate
