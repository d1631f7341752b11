#pragma once
// A custom resource's structural schema (openAPIV3Schema) applied as the API server applies it:
// defaults first, then pruning of unknown fields (reported so Strict field validation can refuse
// them), then validation of types, enums, patterns (RE2, Go's syntax), bounds and required fields
// with causes whose field paths read like kube-apiserver's ("spec.weight"). CEL rules are left to
// the controller.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>
#include <vector>

namespace kp::sim::kube {

struct schema_outcome {
  boost::json::array causes;                // FieldValue* causes for a 422
  std::vector<std::string> unknown_fields;  // pruned paths, e.g. "spec.foo"
};

// Applies `schema` to a whole object. apiVersion, kind and metadata at the root are kept as the
// API machinery owns them.
schema_outcome apply_schema(boost::json::value& object, const boost::json::value& schema);

}  // namespace kp::sim::kube
