#include "core/disruption/repair.hpp"

#include <map>

namespace kp::disruption {
namespace {

std::string minutes_text(std::int64_t ms) {
  const std::int64_t s = ms / 1000;
  return std::to_string(s / 60) + "m" + std::to_string(s % 60) + "s";
}

}  // namespace

std::vector<repair_policy> default_repair_policies(std::chrono::seconds toleration) {
  return {{"Ready", "False", toleration}, {"Ready", "Unknown", toleration}};
}

repair_plan plan_repairs(const std::vector<node_health>& nodes,
                         const std::vector<repair_policy>& policies, std::chrono::sys_seconds now) {
  const std::int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  struct verdict {
    bool unhealthy = false;  // a policy matches, tolerated or not
    std::string why;         // set when the toleration has run out
  };
  std::vector<verdict> verdicts(nodes.size());
  std::map<std::string, std::pair<int, int>> pools;  // unhealthy, total
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& n = nodes[i];
    auto& [unhealthy, total] = pools[n.nodepool];
    ++total;
    for (const auto& c : n.conditions) {
      for (const auto& p : policies) {
        if (c.type != p.condition_type || c.status != p.condition_status) continue;
        verdicts[i].unhealthy = true;
        const std::int64_t lasted = now_ms - c.since_unix_ms;
        const std::int64_t allowed =
            std::chrono::duration_cast<std::chrono::milliseconds>(p.toleration).count();
        if (lasted >= allowed && verdicts[i].why.empty())
          verdicts[i].why = c.type + "=" + c.status + " for " + minutes_text(lasted) +
                            " (toleration " + minutes_text(allowed) + ")";
      }
    }
    if (verdicts[i].unhealthy) ++unhealthy;
  }
  repair_plan out;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& n = nodes[i];
    if (verdicts[i].why.empty() || n.deleting) continue;
    const auto [unhealthy, total] = pools[n.nodepool];
    // Karpenter's guard: more unhealthy nodes than 20% of the pool, rounded up, blocks the
    // pool's repairs (so a pool of one node can still be repaired).
    const int threshold = (total * max_unhealthy_percent + 99) / 100;
    if (unhealthy > threshold) {
      out.blocked.push_back({n.node, n.nodeclaim,
                             "more than 20% of the nodes of NodePool " + n.nodepool +
                                 " are unhealthy (" + std::to_string(unhealthy) + " of " +
                                 std::to_string(total) + ")"});
      continue;
    }
    out.repairs.push_back({n.node, n.nodeclaim, n.nodepool, verdicts[i].why});
  }
  return out;
}

}  // namespace kp::disruption
