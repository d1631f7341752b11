#include "core/disruption/balanced.hpp"

#include <cstdio>
#include <limits>

namespace kp::disruption {

double move_score::score() const {
  if (savings_fraction <= 0) return 0;
  if (disruption_fraction == 0) return std::numeric_limits<double>::infinity();
  return savings_fraction / disruption_fraction;
}

std::string move_score::describe() const {
  char buf[128];
  std::snprintf(buf, sizeof buf,
                "score %.2f %s threshold %.2f (k: %d, savings %.1f%%, disruption %.1f%%)", score(),
                approved() ? ">=" : "<", threshold(), k, savings_fraction * 100,
                disruption_fraction * 100);
  return buf;
}

move_score score_move(double savings, double disruption_cost, const pool_totals& totals, int k) {
  move_score out;
  out.k = k;
  if (totals.cost <= 0 || totals.disruption_cost <= 0) return out;
  out.savings_fraction = savings / totals.cost;
  out.disruption_fraction = disruption_cost / totals.disruption_cost;
  return out;
}

}  // namespace kp::disruption
