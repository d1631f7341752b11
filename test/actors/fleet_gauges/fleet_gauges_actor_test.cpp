// The fleet gauges actor on CAF's test coordinator (virtual time): NodeClaims by phase and the
// lifecycle histograms from snapshots, host gauges from the regions' inventories.
#include "actors/fleet_gauges/fleet_gauges.hpp"

#include <gtest/gtest.h>

#include <prometheus/registry.h>

#include "observability/known_series.hpp"
#include "test/actors/caf_test_fixture.hpp"
#include "test/actors/fake_region.hpp"
#include "test/actors/status/snapshot_builder.hpp"

namespace kp::actors::fleet_gauges {
namespace {

using namespace std::chrono_literals;
using namespace kp::protocol;

// 2025-01-01T00:00:30Z: the actor starts here.
constexpr std::int64_t start_ms = 1735689630000;

// A region whose inventory lists the hosts of `capacity`, read at every request.
region_actor::behavior_type fake_region(region_actor::pointer,
                                        std::shared_ptr<std::vector<host_capacity>> capacity) {
  return test::fake_region_behavior(
      [](launch_atom, const launch_request&) { return launch_reply{}; },
      [](vm_delete_atom, const delete_request&) { return delete_reply{}; },
      [](list_owned_atom) { return owned_vm_listing{}; },
      [capacity](inventory_atom) {
        region_inventory inv;
        inv.refreshed = true;
        inv.capacity = *capacity;
        return inv;
      });
}

kube::node_claim claim(const std::string& name, const std::string& pool,
                       const std::string& created) {
  auto c = test::make_claim(name, pool, "", "2", "4Gi");
  c.metadata.uid = "uid-" + name;
  c.metadata.creation_timestamp = created;
  return c;
}

void set(kube::node_claim& c, const std::string& type, const std::string& when) {
  kube::condition cond;
  cond.type = type;
  cond.status = "True";
  cond.last_transition_time = when;
  c.status.conditions.push_back(cond);
}

class FleetGauges : public test::caf_test {
 protected:
  prometheus::Registry registry_;
  std::shared_ptr<obs::karpenter_metrics> metrics_ =
      std::make_shared<obs::karpenter_metrics>(registry_);

  controller_context context() {
    controller_context ctx;
    ctx.metrics = metrics_;
    ctx.wall_clock_ms = [] { return start_ms; };
    return ctx;
  }
  double phase(const std::string& pool, const std::string& phase) {
    return metrics_->nodeclaims_by_phase.Add({{"nodepool", pool}, {"phase", phase}}).Value();
  }
  bool has_phase(const std::string& pool) {
    return metrics_->nodeclaims_by_phase.Has({{"nodepool", pool}, {"phase", "Ready"}});
  }
  std::uint64_t count(prometheus::Family<prometheus::Histogram>& f, const std::string& pool) {
    return f.Add({{"nodepool", pool}}, obs::duration_buckets()).Collect().histogram.sample_count;
  }
  double sum(prometheus::Family<prometheus::Histogram>& f, const std::string& pool) {
    return f.Add({{"nodepool", pool}}, obs::duration_buckets()).Collect().histogram.sample_sum;
  }
};

TEST_F(FleetGauges, countsClaimsByPoolAndPhaseWithZerosForEveryPhaseOfEveryPool) {
  auto gauges = spawn_fleet_gauges(sys(), context());
  auto ready = claim("general-a", "general", "2025-01-01T00:00:00Z");
  set(ready, "Launched", "2025-01-01T00:00:05Z");
  set(ready, "Registered", "2025-01-01T00:00:20Z");
  set(ready, "Initialized", "2025-01-01T00:00:25Z");
  auto launching = claim("general-b", "general", "2025-01-01T00:00:31Z");
  auto leaving = ready;
  leaving.metadata.name = "general-c";
  leaving.metadata.uid = "uid-general-c";
  leaving.metadata.deletion_timestamp = "2025-01-01T00:00:32Z";
  caf::anon_send(gauges, test::snapshot_builder()
                             .add(test::make_pool("general"))
                             .add(test::make_pool("spare"))
                             .add(ready)
                             .add(launching)
                             .add(leaving)
                             .build());
  sched().run();
  EXPECT_EQ(phase("general", "Ready"), 1);
  EXPECT_EQ(phase("general", "Launching"), 1);
  EXPECT_EQ(phase("general", "Terminating"), 1);
  EXPECT_EQ(phase("general", "Registering"), 0);
  EXPECT_EQ(phase("spare", "Initializing"), 0);
  EXPECT_TRUE(has_phase("spare")) << "a pool without claims still has its series";

  // The pool goes: its phase series go with it.
  caf::anon_send(gauges,
                 test::snapshot_builder().add(test::make_pool("general")).add(ready).build(2));
  sched().run();
  EXPECT_FALSE(has_phase("spare"));
  EXPECT_EQ(phase("general", "Launching"), 0);
  caf::anon_send_exit(gauges, caf::exit_reason::user_shutdown);
}

TEST_F(FleetGauges, observesEachStepOnceAndOnlyWhenItFinishedAfterTheStart) {
  auto gauges = spawn_fleet_gauges(sys(), context());
  auto old = claim("general-a", "general", "2025-01-01T00:00:00Z");
  set(old, "Launched", "2025-01-01T00:00:05Z");
  set(old, "Registered", "2025-01-01T00:00:20Z");  // before the start: history
  auto fresh = claim("general-b", "general", "2025-01-01T00:00:31Z");
  caf::anon_send(
      gauges, test::snapshot_builder().add(test::make_pool("general")).add(old).add(fresh).build());
  sched().run();
  auto& m = *metrics_;
  EXPECT_EQ(count(m.nodeclaims_launch_duration, "general"), 0u);
  EXPECT_EQ(count(m.nodeclaims_registration_duration, "general"), 0u);

  set(old, "Initialized", "2025-01-01T00:00:40Z");
  set(fresh, "Launched", "2025-01-01T00:00:35Z");
  auto snap = test::snapshot_builder().add(test::make_pool("general")).add(old).add(fresh).build(2);
  caf::anon_send(gauges, snap);
  caf::anon_send(gauges, snap);  // the same steps again count once
  sched().run();
  EXPECT_EQ(count(m.nodeclaims_initialization_duration, "general"), 1u);
  EXPECT_DOUBLE_EQ(sum(m.nodeclaims_initialization_duration, "general"), 20);
  EXPECT_EQ(count(m.nodeclaims_launch_duration, "general"), 1u);
  EXPECT_DOUBLE_EQ(sum(m.nodeclaims_launch_duration, "general"), 4);
  EXPECT_EQ(count(m.nodeclaims_registration_duration, "general"), 0u);
  caf::anon_send_exit(gauges, caf::exit_reason::user_shutdown);
}

TEST_F(FleetGauges, primesEachPoolsCountersWhenItFirstSeesThePool) {
  auto gauges = spawn_fleet_gauges(sys(), context());
  const prometheus::Labels created{
      {"reason", "provisioned"}, {"nodepool", "general"}, {"min_values_relaxed", "false"}};
  EXPECT_FALSE(metrics_->nodeclaims_created.Has(created));
  caf::anon_send(gauges, test::snapshot_builder().add(test::make_pool("general")).build());
  sched().run();
  EXPECT_TRUE(metrics_->nodeclaims_created.Has(created));
  EXPECT_TRUE(metrics_->nodeclaims_disrupted.Has({{"reason", "registration_timeout"},
                                                  {"nodepool", "general"},
                                                  {"capacity_type", "on-demand"}}));
  EXPECT_EQ(metrics_->nodeclaims_created.Add(created).Value(), 0);
  caf::anon_send_exit(gauges, caf::exit_reason::user_shutdown);
}

TEST_F(FleetGauges, setsEachHostsFiguresOnEveryRefreshAndDropsHostsThatLeave) {
  auto capacity = std::make_shared<std::vector<host_capacity>>(
      std::vector<host_capacity>{{"pve1", true, 30, 60LL << 30}, {"pve2", false, 0, 0}});
  auto region = sys().spawn(fake_region, capacity);
  auto ctx = context();
  ctx.regions = {{"region-1", region}};
  auto gauges = spawn_fleet_gauges(sys(), ctx);
  sched().run();
  const prometheus::Labels pve1{{"region", "region-1"}, {"host", "pve1"}};
  const prometheus::Labels pve2{{"region", "region-1"}, {"host", "pve2"}};
  EXPECT_EQ(metrics_->host_free_cpus.Add(pve1).Value(), 30);
  EXPECT_EQ(metrics_->host_free_memory.Add(pve1).Value(), 60.0 * (1LL << 30));
  EXPECT_EQ(metrics_->host_online.Add(pve1).Value(), 1);
  EXPECT_EQ(metrics_->host_online.Add(pve2).Value(), 0);

  *capacity = {{"pve1", true, 26, 52LL << 30}};
  sched().run();
  EXPECT_EQ(metrics_->host_free_cpus.Add(pve1).Value(), 30) << "figures move only on a refresh";
  sched().advance_time(10s);
  sched().run();
  EXPECT_EQ(metrics_->host_free_cpus.Add(pve1).Value(), 26);
  EXPECT_FALSE(metrics_->host_free_cpus.Has(pve2));
  EXPECT_FALSE(metrics_->host_online.Has(pve2));
  caf::anon_send_exit(gauges, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(region, caf::exit_reason::user_shutdown);
}

TEST_F(FleetGauges, setsEachNumaNodesFreeCpusAndMemoryAndDropsThemWithTheirHost) {
  auto capacity = std::make_shared<std::vector<host_capacity>>(std::vector<host_capacity>{
      {"pve1", true, 28, 60LL << 30, {{0, 12, 30LL << 30}, {1, 16, 31LL << 30}}}});
  auto region = sys().spawn(fake_region, capacity);
  auto ctx = context();
  ctx.regions = {{"region-1", region}};
  auto gauges = spawn_fleet_gauges(sys(), ctx);
  sched().run();
  const prometheus::Labels numa0{{"region", "region-1"}, {"host", "pve1"}, {"numa", "0"}};
  const prometheus::Labels numa1{{"region", "region-1"}, {"host", "pve1"}, {"numa", "1"}};
  EXPECT_EQ(metrics_->numa_free_cpus.Add(numa0).Value(), 12);
  EXPECT_EQ(metrics_->numa_free_cpus.Add(numa1).Value(), 16);
  EXPECT_EQ(metrics_->numa_free_memory.Add(numa0).Value(), 30.0 * (1LL << 30));
  EXPECT_EQ(metrics_->numa_free_memory.Add(numa1).Value(), 31.0 * (1LL << 30));

  // A pinned VM takes 4 CPUs of node 1; node 0 is no longer reported, then the host goes.
  *capacity = {{"pve1", true, 24, 56LL << 30, {{1, 12, 27LL << 30}}}};
  sched().advance_time(10s);
  sched().run();
  EXPECT_EQ(metrics_->numa_free_cpus.Add(numa1).Value(), 12);
  EXPECT_FALSE(metrics_->numa_free_cpus.Has(numa0));
  EXPECT_FALSE(metrics_->numa_free_memory.Has(numa0));
  capacity->clear();
  sched().advance_time(10s);
  sched().run();
  EXPECT_FALSE(metrics_->numa_free_cpus.Has(numa1));
  EXPECT_FALSE(metrics_->numa_free_memory.Has(numa1));
  caf::anon_send_exit(gauges, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(region, caf::exit_reason::user_shutdown);
}

TEST_F(FleetGauges, aRegionThatDoesNotAnswerKeepsItsHostsLastFigures) {
  auto capacity = std::make_shared<std::vector<host_capacity>>(
      std::vector<host_capacity>{{"pve1", true, 8, 1}});
  auto region = sys().spawn(fake_region, capacity);
  auto ctx = context();
  ctx.regions = {{"region-1", region}};
  auto gauges = spawn_fleet_gauges(sys(), ctx);
  sched().run();
  caf::anon_send_exit(region, caf::exit_reason::kill);
  sched().run();
  sched().advance_time(10s);
  sched().run();
  sched().trigger_timeouts();
  sched().run();
  EXPECT_EQ(metrics_->host_free_cpus.Add({{"region", "region-1"}, {"host", "pve1"}}).Value(), 8);
  caf::anon_send_exit(gauges, caf::exit_reason::user_shutdown);
}

}  // namespace
}  // namespace kp::actors::fleet_gauges
