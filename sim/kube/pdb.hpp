#pragma once
// PodDisruptionBudget arithmetic (what the disruption controller keeps in status) and the
// Eviction subresource that obeys it: 429 when the budget allows no disruption, 500 when more
// than one budget selects the pod.
#include <boost/json/object.hpp>
#include <cstdint>

#include "sim/kube/api_error.hpp"
#include "sim/kube/operations.hpp"

namespace kp::sim::kube {

struct pdb_numbers {
  std::int64_t expected_pods = 0;
  std::int64_t current_healthy = 0;
  std::int64_t desired_healthy = 0;
  std::int64_t disruptions_allowed = 0;
};

pdb_numbers compute_pdb(const boost::json::object& pdb, const object_store& store);
bool pod_healthy(const boost::json::object& pod);

// Handles POST .../pods/<name>/eviction; returns the Status to send (201 Success).
api_result<boost::json::object> evict_pod(operations& ops, std::string_view namespace_name,
                                          std::string_view name, const boost::json::value& body);

}  // namespace kp::sim::kube
