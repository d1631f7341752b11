#pragma once
// NodePool disruption budgets, as Karpenter defines them: how many of a pool's nodes may be
// disrupted at once for a reason, optionally only inside cron windows (UTC).
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "core/time/cron_schedule.hpp"

namespace kp::disruption {

enum class reason { underutilized, empty, drifted };
std::string_view to_string(reason r);
result<reason> parse_reason(std::string_view text);

struct budget_spec {
  std::string nodes = "10%";            // "N" or "P%"
  std::optional<std::string> schedule;  // cron, UTC
  std::optional<std::string> duration;  // "1h", "30m", "1h30m"
  std::vector<std::string> reasons;     // Underutilized, Empty, Drifted; empty = all
};

// A budget checked once: its fields parsed, so evaluation cannot fail.
struct budget {
  bool percent = true;
  int value = 10;
  std::optional<time::cron_schedule> schedule;
  std::chrono::seconds duration{0};
  std::vector<reason> reasons;
  bool misconfigured = false;  // kept so evaluation fails closed, as Karpenter does
};

// Validates one budget; errors name the field (`field` is the path, e.g.
// "spec.disruption.budgets[1]") and the reason.
result<budget> parse_budget(const budget_spec& spec, const std::string& field);

// How many nodes `b` allows now for `r` out of `total_nodes`: percentages round up; a budget
// outside its window, or not for this reason, allows everything (INT32_MAX); a misconfigured
// one allows nothing.
int allowed_by(const budget& b, reason r, int total_nodes, std::chrono::sys_seconds now);

// The most restrictive budget wins, minus the nodes already being disrupted; at least 0.
int allowed_disruptions(const std::vector<budget>& budgets, reason r, int total_nodes,
                        int disrupting, std::chrono::sys_seconds now);

// Karpenter's default when a NodePool lists none: 10% of nodes, for every reason.
std::vector<budget> default_budgets();

}  // namespace kp::disruption
