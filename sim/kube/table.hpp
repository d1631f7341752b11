#pragma once
// meta.k8s.io/v1 Table responses, which kubectl asks for to print `get` output: the usual
// columns for pods, nodes, namespaces, PDBs and the workload kinds (Deployments, ReplicaSets,
// StatefulSets, DaemonSets, Jobs), a CRD's additionalPrinterColumns, and Name/Age else.
#include <boost/json/object.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "sim/kube/resource_registry.hpp"
#include "sim/kube/stored_object.hpp"

namespace kp::sim::kube {

boost::json::object make_table(const resource_type& type, const std::vector<object_ptr>& objects,
                               std::chrono::system_clock::time_point now,
                               const std::string& resource_version,
                               const std::string& continue_token);
std::string human_age(std::chrono::system_clock::duration d);
// A JSONPath as printer columns use it: .a.b, [n], [?(@.k=="v")]; nullptr when absent.
const boost::json::value* eval_json_path(const boost::json::value& root, const std::string& path);

}  // namespace kp::sim::kube
