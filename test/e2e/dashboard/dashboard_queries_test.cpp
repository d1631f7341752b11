// The chart's Grafana dashboard is well formed: every panel queries through the data source
// variable, uses only variables it defines, and reads at least 10 metrics; and the PromQL
// reading that finds those metrics names metrics only.
#include "test/e2e/dashboard/dashboard_queries.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kp::e2e {
namespace {

namespace json = boost::json;

TEST(DashboardQueries, promqlReadingFindsMetricsAndNothingElse) {
  EXPECT_EQ(
      promql_metric_names(
          R"(histogram_quantile(0.95, sum by (region, le) (rate(a_bucket{region=~"$region", code!~"2.."}[$__rate_interval]))))"),
      (std::set<std::string>{"a_bucket"}));
  EXPECT_EQ(promql_metric_names("sum(rate(x_total[5m])) by (reason) / ignoring(code) y offset 1h"),
            (std::set<std::string>{"x_total", "y"}));
  EXPECT_EQ(promql_metric_names(R"(max(kpnodes_total) or vector(0) and on(job) up{job="a}b"})"),
            (std::set<std::string>{"kpnodes_total", "up"}));
  EXPECT_EQ(promql_metric_names("count without (le) (k:recorded_rule)"),
            (std::set<std::string>{"k:recorded_rule"}));
}

TEST(DashboardQueries, grafanaVariablesAreFoundButItsGlobalsAreNot) {
  EXPECT_EQ(grafana_variables(R"(x{a=~"$nodepool", b="${region}"}[$__rate_interval])"),
            (std::set<std::string>{"nodepool", "region"}));
}

TEST(DashboardQueries, theChartDashboardQueriesAtLeastTenMetricsThroughItsOwnVariables) {
  auto dashboard = load_chart_dashboard();
  const auto& d = dashboard.as_object();
  EXPECT_EQ(d.at("uid").as_string(), "karpenter-proxmox");
  std::set<std::string> defined;
  for (const auto& v : d.at("templating").at("list").as_array())
    defined.insert(std::string(v.at("name").as_string()));
  ASSERT_TRUE(defined.count("datasource"));

  std::set<std::string> metrics;
  for (const auto& q : dashboard_queries(dashboard)) {
    auto names = promql_metric_names(q);
    EXPECT_FALSE(names.empty()) << "a query that reads no metric: " << q;
    metrics.insert(names.begin(), names.end());
    for (const auto& v : grafana_variables(q))
      EXPECT_TRUE(defined.count(v)) << "$" << v << " is not defined, in: " << q;
  }
  EXPECT_GE(metrics.size(), 10u);

  // Every panel that queries goes through the data source variable, so the dashboard imports
  // into any Grafana.
  std::set<std::uint64_t> ids;
  std::function<void(const json::array&)> check = [&](const json::array& panels) {
    for (const auto& p : panels) {
      const auto& o = p.as_object();
      EXPECT_TRUE(ids.insert(o.at("id").to_number<std::uint64_t>()).second) << "duplicate id";
      if (auto* targets = o.if_contains("targets")) {
        for (const auto& t : targets->as_array())
          EXPECT_EQ(t.at("datasource").at("uid").as_string(), "${datasource}")
              << o.at("title").as_string();
      }
      if (auto* nested = o.if_contains("panels")) check(nested->as_array());
    }
  };
  check(d.at("panels").as_array());
}

}  // namespace
}  // namespace kp::e2e
