#pragma once
// The structural-schema rules kube-apiserver checks when a CRD is written, for the logic
// junctors (allOf, anyOf, oneOf, not): under them a schema may only carry value validations
// (patterns, enums, bounds, required, nested properties and items), never a type, default,
// description, nullable, additionalProperties, x-kubernetes-* extension or CEL rule, and never
// metadata; and every property or items it names must exist in the schema outside them. The one
// exception is int-or-string's `anyOf: [{type: integer}, {type: string}]` (directly, or as the
// first allOf entry).
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace kp::sim::kube {

// Causes for a 422 of the CRD itself, with kube-apiserver's field paths
// ("spec.versions[0].schema.openAPIV3Schema.properties[spec].allOf[0].type").
boost::json::array check_structural_junctors(const boost::json::object& crd);

}  // namespace kp::sim::kube
