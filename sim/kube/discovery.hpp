#pragma once
// Discovery documents (legacy APIResourceList/APIGroupList and aggregated
// APIGroupDiscoveryList), /version and the minimal OpenAPI v3 index with one PATCH operation per
// kind, which is what kubectl's default validation needs to trust the server's field validation.
#include <boost/json/object.hpp>
#include <optional>
#include <string>

#include "sim/kube/resource_registry.hpp"

namespace kp::sim::kube {

boost::json::object version_document();
boost::json::object core_versions_document();                                // /api legacy
boost::json::object group_list_document(const resource_registry& registry);  // /apis legacy
// /api/v1 or /apis/<g>/<v>; nullopt when the group version is not served.
std::optional<boost::json::object> resource_list_document(const resource_registry& registry,
                                                          const std::string& group,
                                                          const std::string& version);
// Aggregated discovery for /api (core = true) or /apis.
boost::json::object aggregated_document(const resource_registry& registry, bool core);

boost::json::object openapi_v3_index(const resource_registry& registry);
// "api/v1" or "apis/<g>/<v>"; nullopt when unknown.
std::optional<boost::json::object> openapi_v3_document(const resource_registry& registry,
                                                       const std::string& group_version_path);

}  // namespace kp::sim::kube
