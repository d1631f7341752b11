#pragma once
// Patch bodies the controller sends, built here so their JSON shape is written once:
// merge patches (RFC 7386) for labels, annotations, finalizers and status, and JSON patches
// (RFC 6902) guarded by a resourceVersion test where a lost update would be harmful.
#include <optional>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "protocol/kube/karpenter_v1.hpp"
#include "protocol/kube/meta_types.hpp"

namespace kp::kube {

// {"metadata":{"labels":{set..., removed: null}}}; with a resourceVersion the patch becomes
// conditional (409 "conflict" when the object changed meanwhile).
std::string labels_merge_patch(const string_map& set, const std::vector<std::string>& remove,
                               const std::string& resource_version = "");
std::string annotations_merge_patch(const string_map& set, const std::vector<std::string>& remove,
                                    const std::string& resource_version = "");
// Replaces the whole finalizer list; the resourceVersion keeps concurrent writers apart.
std::string finalizers_merge_patch(const std::vector<std::string>& finalizers,
                                   const std::string& resource_version);
// {"spec":{"unschedulable":true|false}} (cordon / uncordon).
std::string unschedulable_merge_patch(bool unschedulable);
// JSON patch: test /metadata/resourceVersion, then set /spec/taints (a Node's whole taint list).
std::string taints_json_patch(const std::vector<taint>& taints,
                              const std::string& resource_version);
// {"status": <the NodeClaim's status>} for the status subresource (conditions replace as a list).
std::string node_claim_status_merge_patch(const node_claim& claim);
// {"status": {<fields>..., "conditions": [...]}} for a status subresource whose conditions the
// controller owns (the list replaces the whole list): each condition with type, status, reason,
// message, lastTransitionTime, and observedGeneration when set.
std::string conditions_status_merge_patch(const std::vector<condition>& conditions,
                                          boost::json::object fields = {});

}  // namespace kp::kube
