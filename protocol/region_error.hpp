#pragma once
// The error value of every region actor reply (codes: region_messages.hpp).
#include <string>

#include <caf/meta/type_name.hpp>

namespace kp::protocol {

struct region_error {
  std::string code;
  std::string message;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, region_error& x) {
  return f(caf::meta::type_name("region_error"), x.code, x.message);
}

}  // namespace kp::protocol
