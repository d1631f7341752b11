#pragma once
// What the workload controllers (ReplicaSet, Deployment, DaemonSet, StatefulSet, Job) share: who
// controls an object, the pods a controller owns, a pod made from a template with its owner
// reference, template hashes named as Kubernetes names them, readiness and availability, and
// int-or-percent fields (maxSurge, maxUnavailable).
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/kube/controllers/controller.hpp"
#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {

// True when `object` has an ownerReference with this uid and controller: true.
bool controlled_by(const boost::json::object& object, std::string_view owner_uid);
// The uid of the controlling owner, or "" when none.
std::string_view controller_uid(const boost::json::object& object);

// Every object of a namespaced collection in `namespace_name`, grouped by the uid of its
// controlling owner (one scan of the collection per pass, whatever the number of owners).
std::unordered_map<std::string, std::vector<object_ptr>> objects_by_controller(
    const object_store& store, const std::string& storage_key, std::string_view namespace_name);

// A pod from a PodTemplateSpec: the template's labels, annotations and spec, in the owner's
// namespace, with a controlling ownerReference to `owner` (apiVersion/kind given). The name is
// `name` when given, else generated from "<owner name>-".
boost::json::object pod_from_template(const boost::json::object& owner,
                                      std::string_view owner_api_version,
                                      std::string_view owner_kind,
                                      const boost::json::object& pod_template,
                                      std::string_view name = {});

// A controlling ownerReference to `owner`.
boost::json::object controller_reference(const boost::json::object& owner,
                                         std::string_view api_version, std::string_view kind);

// Kubernetes' template hash: FNV-1a (32 bits) of the template, and of the collision count when
// given, written in the alphabet Kubernetes uses for generated names ("5d4f8b9c7"). The template
// is hashed in a canonical form (keys sorted), so key order never changes the hash.
std::string template_hash(const boost::json::value& pod_template,
                          std::int64_t collision_count = -1);

// The template without a label (e.g. pod-template-hash), to compare templates ignoring it.
boost::json::object template_without_label(const boost::json::object& pod_template,
                                           std::string_view label);

bool pod_active(const boost::json::object& pod);  // not finished, not being deleted
bool pod_ready(const boost::json::object& pod);   // Running with Ready=True
// Ready for at least min_ready_seconds (the Ready condition's lastTransitionTime).
bool pod_available(const boost::json::object& pod, std::int64_t min_ready_seconds, sys_time now);

// An int-or-percent field ("25%" or 2) against `total`; percentages round up or down as the
// field's owner does. A missing or malformed value gives `fallback`.
std::int64_t scaled_value(const boost::json::value* field, std::int64_t total, bool round_up,
                          std::int64_t fallback);

// An int64 at a path, or `fallback` when missing or not an integer.
std::int64_t int_at(const boost::json::object& o, std::initializer_list<std::string_view> path,
                    std::int64_t fallback);

// The user a workload controller writes as.
user_info controller_user(std::string_view controller_name);

}  // namespace kp::sim::kube
