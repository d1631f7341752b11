#pragma once
// The patch formats of the API: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and
// strategic merge patch (lists merged by their patchMergeKey, with $patch directives) for the
// built-in kinds' fields that clients touch.
#include <boost/json/value.hpp>
#include <string>

#include "sim/kube/api_error.hpp"

namespace kp::sim::kube {

void apply_merge_patch(boost::json::value& target, const boost::json::value& patch);
// Fails with 422 (a failed `test`, a missing path) or 400 (a malformed operation).
api_status apply_json_patch(boost::json::value& target, const boost::json::value& patch);
api_status apply_strategic_merge_patch(boost::json::value& target, const boost::json::value& patch);

}  // namespace kp::sim::kube
