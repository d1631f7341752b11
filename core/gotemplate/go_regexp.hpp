#pragma once
// Go's regexp package over RE2: the same syntax (RE2's, which Go's regexp/syntax implements),
// leftmost-first matching on UTF-8 text in linear time without recursion, Go's compile error
// wording ("error parsing regexp: missing closing ): `(a`"), and Go's ReplaceAllString
// (empty matches, $1/${name} expansion).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace re2 {
class RE2;
}

namespace kp::gotemplate {

class go_regexp {
 public:
  // regexp.Compile: error code "function", message as Go's.
  static result<go_regexp> compile(std::string_view pattern);

  // FindString: the leftmost match, or "" when none.
  std::string find(std::string_view s) const;
  // FindStringSubmatch: the match and its groups ("" for a group that did not take part);
  // empty when there is no match.
  std::vector<std::string> find_submatch(std::string_view s) const;
  // ReplaceAllString: every match replaced by repl with $1, ${1}, $name, ${name} and $$ expanded;
  // nullopt once the result exceeds max_bytes (each match may copy the whole text again).
  std::optional<std::string> replace_all(std::string_view s, std::string_view repl,
                                         std::size_t max_bytes) const;

 private:
  explicit go_regexp(std::shared_ptr<const re2::RE2> re) : re_(std::move(re)) {}
  // False once out exceeds max_bytes.
  bool expand(std::string& out, std::string_view repl, const std::vector<std::string_view>& groups,
              std::size_t max_bytes) const;

  std::shared_ptr<const re2::RE2> re_;
};

// Unicode letters (category L) and decimal digits (Nd), as Go's unicode.IsLetter/IsDigit.
bool is_unicode_letter_or_digit(std::uint32_t cp);

}  // namespace kp::gotemplate
