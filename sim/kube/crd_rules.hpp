#pragma once
// A CRD schema's CEL rules (x-kubernetes-validations) as kube-apiserver applies them: every rule
// compiles when the CRD is written (or the CRD is refused), and each write of a custom object
// evaluates the rules on the values they sit on, with `oldSelf` from the previous version where
// it correlates (object fields, map entries, items of map-type lists by their keys). Transition
// rules run only when an old value exists; other rules are ratcheted: a value unchanged since
// the old version is not re-judged (CRDValidationRatcheting, on by default in 1.32).
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

namespace kp::sim::kube {

// Causes for a 422 of the CRD itself: one per rule (or `pattern`, a Go regular expression read
// by RE2) that does not compile, with the field path
// of the rule ("spec.versions[0].schema.openAPIV3Schema.properties[spec]...").
boost::json::array check_crd_rules(const boost::json::object& crd);

// Causes for a 422 of a custom object: one per rule that fails or errors, worded as
// kube-apiserver words them ("spec: Invalid value: \"object\": <message>").
boost::json::array evaluate_crd_rules(const boost::json::value& object,
                                      const boost::json::value* old_object,
                                      const boost::json::value& schema);

}  // namespace kp::sim::kube
