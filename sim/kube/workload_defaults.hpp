#pragma once
// The API server's defaults for the workload kinds (apps/v1 Deployment, DaemonSet, StatefulSet;
// batch/v1 Job), filled in on create and update as kube-apiserver's SetDefaults_* do, so clients
// read the fields they rely on (kubectl rollout status checks the update strategy type).
#include <boost/json/object.hpp>

#include "sim/kube/resource_registry.hpp"

namespace kp::sim::kube {

// Fills in missing spec fields of a workload object; other kinds are left as they are.
void apply_workload_defaults(const resource_type& type, boost::json::object& object);

}  // namespace kp::sim::kube
