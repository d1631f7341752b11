#pragma once
// CEL's lexical grammar: identifiers, reserved words, int/uint/double literals (decimal and hex),
// string and bytes literals (single, double, triple quotes, raw, escapes) and punctuation.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace kp::sim::kube::cel {

enum class token_kind {
  identifier,
  integer,
  unsigned_integer,
  floating,
  string,
  bytes,
  punct,
  end
};

struct token {
  token_kind kind = token_kind::end;
  std::string text;  // identifier, punctuation, or the decoded string/bytes value
  std::int64_t integer = 0;
  std::uint64_t unsigned_integer = 0;
  double floating = 0;
  std::size_t position = 0;
};

// Splits a whole expression into tokens, ending with one `end` token.
result<std::vector<token>> tokenize(std::string_view source);

}  // namespace kp::sim::kube::cel
