#pragma once
// The instance type catalogue as every copy of a controller_context holds it: one immutable list
// shared by all copies (thousands of NodeClaim actors each hold a context), read as a
// `const std::vector<instance_type>&`. Assigning a new list replaces it for this copy only.
#include <memory>
#include <utility>
#include <vector>

#include "core/instance_types/instance_type.hpp"

namespace kp::actors {

class shared_instance_types {
 public:
  using list = std::vector<instance_types::instance_type>;

  shared_instance_types() : types_(none()) {}
  // Implicit, so that `ctx.instance_types = builtin_instance_types();` reads as before.
  shared_instance_types(list types)  // NOLINT(google-explicit-constructor)
      : types_(std::make_shared<const list>(std::move(types))) {}

  operator const list&() const { return *types_; }  // NOLINT(google-explicit-constructor)
  const list& get() const { return *types_; }
  bool empty() const { return types_->empty(); }
  std::size_t size() const { return types_->size(); }
  list::const_iterator begin() const { return types_->begin(); }
  list::const_iterator end() const { return types_->end(); }

 private:
  static std::shared_ptr<const list> none() {
    static const auto no_types = std::make_shared<const list>();
    return no_types;
  }
  std::shared_ptr<const list> types_;
};

}  // namespace kp::actors
