#pragma once
// The /scale subresource (autoscaling/v1 Scale) of every resource that declares one:
// Deployments, ReplicaSets and StatefulSets, and CRDs with subresources.scale (specReplicasPath,
// statusReplicasPath, labelSelectorPath), such as Karpenter's NodePool. Reading shows the
// object's replicas; writing sets its spec replicas path and goes through the object's own
// update, so its schema, CEL rules and resourceVersion apply.
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>

#include "sim/kube/api_error.hpp"
#include "sim/kube/resource_registry.hpp"

namespace kp::sim::kube {

// metav1.LabelSelector in its query-string form, as Scale.status.selector and kubectl's
// SELECTOR column show it ("app=web,tier in (a,b)").
std::string selector_text(const boost::json::object* selector);

boost::json::object scale_of(const resource_type& type, const boost::json::object& object);

// The object with spec replicas from `scale` (a Scale after a PUT or a patch), carrying the
// Scale's resourceVersion as the update's precondition. 400/422 for a malformed Scale.
api_result<boost::json::object> with_scale(const resource_type& type, boost::json::object object,
                                           const boost::json::value& scale);

}  // namespace kp::sim::kube
