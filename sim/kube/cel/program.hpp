#pragma once
// A compiled CEL rule and its evaluation over JSON values, as kube-apiserver evaluates a CRD's
// x-kubernetes-validations: `self` is the value the rule sits on, `oldSelf` its previous version
// (transition rules). compile() refuses what this interpreter cannot evaluate (unknown
// functions, undeclared names, bad literal regexes) so a CRD is never accepted with a rule that
// would silently be skipped. Evaluation errors (no such key, bad conversion, overflow) are
// values, as in CEL, absorbed by || and && where the other side decides.
#include <boost/json/value.hpp>
#include <string>
#include <string_view>

#include "core/result.hpp"
#include "sim/kube/cel/expression.hpp"

namespace kp::sim::kube::cel {

struct program {
  std::string source;
  expression_ptr root;
  bool uses_old_self = false;  // a transition rule: evaluated only when an old value exists
};

result<program> compile(std::string_view source);

// The rule's value (a bool for validation rules) or a CEL runtime error.
result<boost::json::value> evaluate(const program& p, const boost::json::value& self,
                                    const boost::json::value* old_self = nullptr);

}  // namespace kp::sim::kube::cel
