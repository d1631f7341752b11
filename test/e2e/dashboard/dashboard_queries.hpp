#pragma once
// Reads the Grafana dashboard of the chart: its PromQL queries (panel targets, also inside rows,
// and the label_values() of its variables) and the metric names each query reads.
#include <boost/json/value.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kp::e2e {

// Every PromQL expression of a dashboard: panels' targets (rows' nested panels included) and
// the metric of each `label_values(metric, label)` variable.
std::vector<std::string> dashboard_queries(const boost::json::value& dashboard);

// The metric names a PromQL expression reads: identifiers that are not functions, aggregation
// keywords, label names (inside {...}, by/without/on/ignoring/group_* lists), strings, numbers,
// durations or Grafana variables.
std::set<std::string> promql_metric_names(std::string_view expr);

// The `$name` variables an expression uses (Grafana's global `$__...` ones left out).
std::set<std::string> grafana_variables(std::string_view expr);

// The dashboard of the chart, read from the source tree ($KP_SOURCE_DIR).
boost::json::value load_chart_dashboard();

}  // namespace kp::e2e
