#pragma once
// The flags after a subcommand (`plan`, `view`), read one at a time: "--x v" and "--x=v" (any
// argument that starts with a dash may carry its value after "="). Each command matches the
// names itself; the settings before the subcommand are config/'s.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace kp::plan {

class subcommand_flags {
 public:
  // With `one_dash_long_names`, "-once" reads as "--once" (as the binary's settings accept);
  // without, every name stays as written ("-f", "--filename"). `args` must outlive the reader.
  subcommand_flags(const std::vector<std::string>& args, bool one_dash_long_names);

  // Moves to the next argument; false once past the last.
  bool next();
  // The current flag's name, without its "=value".
  const std::string& name() const { return name_; }
  // The flag's value: what follows "=", else the next argument (a usage error when none is left).
  result<std::string> value();
  // value() as a positive whole number of seconds.
  result<int> positive_seconds();
  // The usage error for an argument that no flag of the command matches.
  error unknown() const;

 private:
  const std::vector<std::string>& args_;
  bool one_dash_long_names_;
  std::size_t current_ = 0;  // the argument name() came from
  std::size_t at_ = 0;       // the next argument to read
  std::string name_;
  std::optional<std::string> inline_value_;
};

}  // namespace kp::plan
