#include "core/disruption/budget.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>

#include "core/time/go_duration.hpp"

namespace kp::disruption {

namespace {

constexpr int unlimited = std::numeric_limits<std::int32_t>::max();

result<int> parse_count(std::string_view text) {
  int value = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0)
    return make_error("invalid", "");
  return value;
}

// Karpenter's pattern for budget durations: hours and/or minutes only, e.g. "1h", "30m", "1h30m".
bool minutes_or_hours_only(std::string_view s) {
  if (s.size() >= 2 && s.substr(s.size() - 2) == "0s") s.remove_suffix(2);
  if (s.empty()) return false;
  bool seen_hours = false, seen_minutes = false;
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == start || i == s.size()) return false;
    if (s[i] == 'h' && !seen_hours && !seen_minutes)
      seen_hours = true;
    else if (s[i] == 'm' && !seen_minutes)
      seen_minutes = true;
    else
      return false;
    ++i;
  }
  return true;
}

}  // namespace

std::string_view to_string(reason r) {
  switch (r) {
    case reason::underutilized:
      return "Underutilized";
    case reason::empty:
      return "Empty";
    case reason::drifted:
      return "Drifted";
  }
  return "Empty";
}

result<reason> parse_reason(std::string_view text) {
  for (auto r : {reason::underutilized, reason::empty, reason::drifted}) {
    if (text == to_string(r)) return r;
  }
  return make_error("invalid_reason", "unknown disruption reason \"" + std::string(text) +
                                          "\"; allowed: Underutilized, Empty, Drifted");
}

result<budget> parse_budget(const budget_spec& spec, const std::string& field) {
  budget b;
  std::string_view nodes = spec.nodes;
  if (!nodes.empty() && nodes.back() == '%') {
    auto v = parse_count(nodes.substr(0, nodes.size() - 1));
    if (!v || *v > 100 || nodes.size() > 4) {
      return make_error("invalid_budget", field + ".nodes: \"" + spec.nodes +
                                              "\" must be a count or a percentage 0%-100%");
    }
    b.percent = true;
    b.value = *v;
  } else {
    auto v = parse_count(nodes);
    if (!v)
      return make_error("invalid_budget", field + ".nodes: \"" + spec.nodes +
                                              "\" must be a count or a percentage 0%-100%");
    b.percent = false;
    b.value = *v;
  }
  if (spec.schedule.has_value() != spec.duration.has_value()) {
    return make_error("invalid_budget", field + ": schedule and duration must be set together");
  }
  if (spec.schedule) {
    auto cron = time::cron_schedule::parse(*spec.schedule);
    if (!cron) return make_error("invalid_budget", field + ".schedule: " + cron.error().message);
    b.schedule = *cron;
    if (!minutes_or_hours_only(*spec.duration)) {
      return make_error("invalid_budget",
                        field + ".duration: \"" + *spec.duration +
                            "\" must be hours and/or minutes, e.g. 1h, 30m, 1h30m");
    }
    auto d = time::parse_go_duration(*spec.duration);
    if (!d) return make_error("invalid_budget", field + ".duration: " + d.error().message);
    b.duration = std::chrono::duration_cast<std::chrono::seconds>(*d);
  }
  for (std::size_t i = 0; i < spec.reasons.size(); ++i) {
    auto r = parse_reason(spec.reasons[i]);
    if (!r)
      return make_error("invalid_budget",
                        field + ".reasons[" + std::to_string(i) + "]: " + r.error().message);
    b.reasons.push_back(*r);
  }
  return b;
}

int allowed_by(const budget& b, reason r, int total_nodes, std::chrono::sys_seconds now) {
  if (b.misconfigured) return 0;
  if (!b.reasons.empty() && std::find(b.reasons.begin(), b.reasons.end(), r) == b.reasons.end())
    return unlimited;
  if (b.schedule) {
    // Active in [firing, firing + duration): the next firing after now - duration is not later
    // than now (robfig/cron Next semantics, as Karpenter evaluates it).
    auto next = b.schedule->next_after(now - b.duration);
    if (!next || *next > now) return unlimited;
  }
  if (!b.percent) return b.value;
  // Percentages round up: 5% of 10 nodes allows 1.
  return static_cast<int>((static_cast<std::int64_t>(total_nodes) * b.value + 99) / 100);
}

int allowed_disruptions(const std::vector<budget>& budgets, reason r, int total_nodes,
                        int disrupting, std::chrono::sys_seconds now) {
  int allowed = unlimited;
  for (const auto& b : budgets) allowed = std::min(allowed, allowed_by(b, r, total_nodes, now));
  if (allowed == unlimited) return unlimited;
  return std::max(0, allowed - disrupting);
}

std::vector<budget> default_budgets() {
  return {budget{}};
}

}  // namespace kp::disruption
