#pragma once
// A few of the controller's own counters, read from its /metrics (Prometheus text format) for
// the lab's summary: NodeClaims created and terminated, nodes created, cloud provider errors.
#include <map>
#include <string>

#include "core/result.hpp"

namespace kp::lab {

// Sums every sample of each metric family in a Prometheus text exposition.
std::map<std::string, double> sum_metric_families(const std::string& exposition);

// GET http://127.0.0.1:<port>/metrics, summed by family.
result<std::map<std::string, double>> read_controller_metrics(int port);

}  // namespace kp::lab
