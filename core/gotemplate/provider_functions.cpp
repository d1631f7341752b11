#include "core/gotemplate/function_table.hpp"
#include "core/gotemplate/provider_function_groups.hpp"

namespace kp::gotemplate {

const function_table& provider_functions() {
  static const function_table table = [] {
    function_table t;
    t.merge(builtin_functions());
    add_logic_functions(t);
    add_string_functions(t);
    add_regex_functions(t);
    add_encoding_functions(t);
    add_network_functions(t);
    return t;
  }();
  return table;
}

}  // namespace kp::gotemplate
