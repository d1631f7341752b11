#pragma once
// YAML manifests to the JSON objects the Kubernetes API takes (kube-sim, like the real API
// server behind kubectl, reads JSON bodies). Plain scalars resolve as YAML 1.2's core schema
// does (null, booleans, integers, floats); quoted ones stay strings.
#include <boost/json/value.hpp>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace kp::lab {

// Every non-empty document of a multi-document YAML text.
result<std::vector<boost::json::value>> yaml_documents_to_json(const std::string& text);

}  // namespace kp::lab
