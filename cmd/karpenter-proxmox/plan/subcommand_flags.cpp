#include "cmd/karpenter-proxmox/plan/subcommand_flags.hpp"

#include "core/parse_number.hpp"

namespace kp::plan {

subcommand_flags::subcommand_flags(const std::vector<std::string>& args, bool one_dash_long_names)
    : args_(args), one_dash_long_names_(one_dash_long_names) {}

bool subcommand_flags::next() {
  if (at_ >= args_.size()) return false;
  current_ = at_++;
  name_ = args_[current_];
  inline_value_.reset();
  if (!name_.starts_with("-")) return true;
  if (one_dash_long_names_ && !name_.starts_with("--")) name_ = "-" + name_;
  if (auto eq = name_.find('='); eq != std::string::npos) {
    inline_value_ = name_.substr(eq + 1);
    name_.resize(eq);
  }
  return true;
}

result<std::string> subcommand_flags::value() {
  if (inline_value_) return *inline_value_;
  if (at_ >= args_.size()) return make_error("usage", name_ + ": needs a value");
  return args_[at_++];
}

result<int> subcommand_flags::positive_seconds() {
  auto text = value();
  if (!text) return text.error();
  auto n = kp::parse_integer<int>(*text);
  if (!n || *n <= 0)
    return make_error("usage", name_ + " \"" + *text + "\": expected a positive number of seconds");
  return *n;
}

error subcommand_flags::unknown() const {
  return make_error("usage", "unknown argument \"" + args_[current_] + "\"");
}

}  // namespace kp::plan
