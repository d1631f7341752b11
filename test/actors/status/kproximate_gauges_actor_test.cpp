// The kproximate gauges actor on CAF's test coordinator (virtual time): it asks every region for
// its inventory and sets the gauges from the latest snapshot on each refresh tick.
#include "actors/kproximate_gauges/kproximate_gauges.hpp"

#include <gtest/gtest.h>

#include <prometheus/registry.h>

#include "snapshot_builder.hpp"
#include "test/actors/caf_test_fixture.hpp"
#include "test/actors/fake_region.hpp"

namespace kp::actors::kproximate_gauges {
namespace {

using namespace std::chrono_literals;
using namespace kp::protocol;

// A region that only reports an inventory with `vms` VMs.
region_actor::behavior_type fake_region(region_actor::pointer, std::uint32_t vms) {
  return test::fake_region_behavior(
      [](launch_atom, const launch_request&) { return launch_reply{}; },
      [](vm_delete_atom, const delete_request&) { return delete_reply{}; },
      [](list_owned_atom) { return owned_vm_listing{}; },
      [vms](inventory_atom) {
        region_inventory inv;
        inv.refreshed = true;
        inv.vms = vms;
        return inv;
      });
}

class KproximateGauges : public test::caf_test {
 protected:
  prometheus::Registry registry_;
  std::shared_ptr<obs::karpenter_metrics> metrics_ =
      std::make_shared<obs::karpenter_metrics>(registry_);

  double value(prometheus::Family<prometheus::Gauge>& f) { return f.Add({}).Value(); }
};

TEST_F(KproximateGauges, sumTheRegionsVmsAndTheSnapshotsFiguresOnEveryRefresh) {
  controller_context ctx;
  ctx.metrics = metrics_;
  auto r1 = sys().spawn(fake_region, 3u);
  auto r2 = sys().spawn(fake_region, 4u);
  ctx.regions = {{"region-1", r1}, {"region-2", r2}};
  auto gauges = spawn_kproximate_gauges(sys(), ctx);
  sched().run();
  EXPECT_EQ(value(metrics_->kpnodes_total), 7);
  EXPECT_EQ(value(metrics_->kpnodes_running), 0) << "no snapshot yet";

  auto snap = test::snapshot_builder()
                  .add(test::make_node("kp-1", "general", "2", "4Gi"))
                  .add(test::make_node("kp-2", "general", "4", "4Gi"))
                  .build();
  caf::anon_send(gauges, snap);
  sched().run();
  EXPECT_EQ(value(metrics_->kpnodes_running), 0) << "gauges move only on the refresh tick";
  sched().advance_time(5s);
  sched().run();
  EXPECT_EQ(value(metrics_->kpnodes_running), 2);
  EXPECT_EQ(value(metrics_->cpu_provisioned_total), 6);
  EXPECT_EQ(value(metrics_->memory_allocatable_total), 8.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(value(metrics_->kpnodes_total), 7);

  // A new snapshot is summed on the next tick (the same one is not summed again).
  caf::anon_send(
      gauges, test::snapshot_builder().add(test::make_node("kp-3", "general", "8", "4Gi")).build());
  sched().run();
  sched().advance_time(5s);
  sched().run();
  EXPECT_EQ(value(metrics_->kpnodes_running), 1);
  EXPECT_EQ(value(metrics_->cpu_provisioned_total), 8);

  caf::anon_send_exit(gauges, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(r1, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(r2, caf::exit_reason::user_shutdown);
}

TEST_F(KproximateGauges, aRegionThatDoesNotAnswerKeepsItsLastCount) {
  controller_context ctx;
  ctx.metrics = metrics_;
  auto r1 = sys().spawn(fake_region, 3u);
  ctx.regions = {{"region-1", r1}};
  auto gauges = spawn_kproximate_gauges(sys(), ctx);
  sched().run();
  ASSERT_EQ(value(metrics_->kpnodes_total), 3);
  caf::anon_send_exit(r1, caf::exit_reason::kill);
  sched().run();
  sched().advance_time(5s);
  sched().run();
  sched().trigger_timeouts();
  sched().run();
  EXPECT_EQ(value(metrics_->kpnodes_total), 3);
  caf::anon_send_exit(gauges, caf::exit_reason::user_shutdown);
}

}  // namespace
}  // namespace kp::actors::kproximate_gauges
