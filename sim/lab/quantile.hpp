#pragma once
// The q-quantile of a sample by nearest rank (q = 0.5: the median), for the figures the lab and
// the benchmarks print. 0 for an empty sample.
#include <vector>

namespace kp::lab {

double quantile(std::vector<double> values, double q);

}  // namespace kp::lab
