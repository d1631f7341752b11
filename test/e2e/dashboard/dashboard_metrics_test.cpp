// Every metric the chart's Grafana dashboard queries is exported by the controller in the lab:
// the counters from the moment it leads (their known label values are created at zero), every
// other metric once a pod has had a node made for it; and the NodeClaim lifecycle metrics move.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <set>
#include <sstream>

#include "sim/lab/controller_metrics.hpp"
#include "sim/lab/http_endpoint.hpp"
#include "test/e2e/dashboard/dashboard_queries.hpp"
#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

// One scrape: the value (summed) of every sample name, and each family's TYPE.
struct scrape {
  std::map<std::string, double> samples;
  std::map<std::string, std::string> types;

  // The family a sample name belongs to (histogram samples end in _bucket, _sum or _count).
  std::string family_of(const std::string& name) const {
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      const std::string s = suffix;
      if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
        auto base = name.substr(0, name.size() - s.size());
        if (auto t = types.find(base); t != types.end() && t->second == "histogram") return base;
      }
    }
    return name;
  }
  std::string missing(const std::set<std::string>& names) const {
    std::string out;
    for (const auto& n : names)
      if (!samples.count(n)) out += " " + n;
    return out;
  }
};

class dashboard_metrics : public e2e_test {
 protected:
  result<scrape> read() {
    lab::http_endpoint endpoint(
        "http://127.0.0.1:" + std::to_string(world->controller(0).metrics_port), "", "");
    auto r = endpoint.call("GET", "/metrics", "", "", std::chrono::seconds(5));
    if (!r) return r.error();
    if (!r->ok()) return make_error("metrics", "GET /metrics: HTTP " + std::to_string(r->status));
    scrape s;
    s.samples = lab::sum_metric_families(r->body);
    std::istringstream in(r->body);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream words(line);
      std::string hash, kind, name, type;
      if (words >> hash >> kind >> name >> type && hash == "#" && kind == "TYPE")
        s.types[name] = type;
    }
    return s;
  }

  // Scrapes until `done` holds or `within` passes; the last scrape either way.
  scrape read_until(const std::function<bool(const scrape&)>& done,
                    std::chrono::milliseconds within) {
    scrape last;
    lab::lab_world::eventually(
        [&] {
          auto s = read();
          if (!s) return false;
          last = std::move(*s);
          return done(last);
        },
        within);
    return last;
  }

  static std::set<std::string> queried_metrics() {
    std::set<std::string> names;
    for (const auto& q : dashboard_queries(load_chart_dashboard())) {
      auto n = promql_metric_names(q);
      names.insert(n.begin(), n.end());
    }
    return names;
  }
};

TEST_F(dashboard_metrics, everyMetricTheDashboardQueriesIsExportedByTheControllerInTheLab) {
  const auto queried = queried_metrics();
  KP_E2E_START();
  start_controller();

  // Leading: the writers run, the regions answered, and the NodePool was seen.
  auto first = read_until(
      [](const scrape& s) {
        return s.samples.count("kpnodes_total") &&
               s.samples.count("karpenter_proxmox_host_free_cpus") &&
               s.samples.count("karpenter_proxmox_nodeclaims");
      },
      30s);
  ASSERT_TRUE(first.samples.count("karpenter_proxmox_host_free_cpus"))
      << "the controller never published its host gauges" << diagnose();

  // One pod, one new node: the per-pod and per-claim series exist and the lifecycle steps were
  // observed.
  scale("dash", 1);
  ASSERT_TRUE(wait_for([](const cluster_view& v) { return v.running() == 1; }, 60s)) << diagnose();
  auto after = read_until(
      [&](const scrape& s) {
        return s.missing(queried).empty() &&
               s.samples.count(
                   "karpenter_proxmox_nodeclaims_initialization_duration_seconds_count") &&
               s.samples.at("karpenter_proxmox_nodeclaims_initialization_duration_seconds_count") >=
                   1;
      },
      30s);
  EXPECT_EQ(after.missing(queried), "") << "queried by the dashboard, not exported" << diagnose();
  // Which metrics are counters is read once every family has a series; each of them already had
  // one at the first scrape, before any event.
  std::set<std::string> families, counters;
  for (const auto& name : queried) {
    families.insert(after.family_of(name));
    EXPECT_TRUE(after.types.count(after.family_of(name)))
        << name << " is not a metric family the controller registers";
    if (after.types.count(name) && after.types.at(name) == "counter") counters.insert(name);
  }
  EXPECT_GE(counters.size(), 5u);
  EXPECT_EQ(first.missing(counters), "")
      << "counters the dashboard queries that have no series before their first event";
  EXPECT_GE(families.size(), 10u);
  for (const char* step : {"launch", "registration", "initialization"}) {
    const std::string count =
        std::string("karpenter_proxmox_nodeclaims_") + step + "_duration_seconds_count";
    EXPECT_GE(after.samples[count], 1) << count;
  }
  EXPECT_GE(after.samples["karpenter_nodeclaims_created_total"], 1);
  EXPECT_GE(after.samples["karpenter_proxmox_nodeclaims"], 1);
}

}  // namespace
}  // namespace kp::e2e
