// The collector's schedule on CAF's test coordinator (virtual time) with a fake region: a pass
// every GARBAGE_COLLECTION_INTERVAL, one on collect_atom and one on the first synced snapshot;
// an orphan VM is deleted only once it has been seen for the grace period; a pass that throws
// is counted at the boundary and the next pass still runs.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <vector>

#include <prometheus/counter.h>
#include <prometheus/registry.h>

#include "actors/garbage_collection/garbage_collector.hpp"
#include "observability/karpenter_metrics.hpp"
#include "test/actors/caf_test_fixture.hpp"
#include "test/actors/fake_region.hpp"

namespace kp::actors {
namespace {

using namespace std::chrono_literals;
using namespace kp::protocol;

struct region_calls {
  int listed = 0;
  std::vector<std::uint32_t> deleted;
};

region_actor::behavior_type fake_region(std::shared_ptr<region_calls> calls,
                                        std::vector<owned_vm> vms) {
  return test::fake_region_behavior(
      [](launch_atom, const launch_request&) { return launch_reply{}; },
      [calls](vm_delete_atom, const delete_request& r) {
        calls->deleted.push_back(r.vmid);
        delete_reply d;
        d.ok = true;
        return d;
      },
      [calls, vms](list_owned_atom) {
        ++calls->listed;
        owned_vm_listing l;
        l.region = "r1";
        l.fresh = true;
        l.vms = vms;
        return l;
      },
      [](inventory_atom) {
        region_inventory inv;
        inv.region = "r1";
        inv.refreshed = true;
        return inv;
      });
}

class GarbageCollectorTimer : public kp::test::caf_test {
 protected:
  std::int64_t wall_ms = 1'800'000'000'000;
  std::shared_ptr<region_calls> calls = std::make_shared<region_calls>();
  int clock_throws = 0;  // the next this many wall-clock reads throw
  prometheus::Registry registry;
  std::shared_ptr<obs::karpenter_metrics> metrics =
      std::make_shared<obs::karpenter_metrics>(registry);

  garbage_collector_actor spawn() {
    owned_vm vm;
    vm.nodeclaim = "orphan";
    vm.vmid = 20000;
    vm.provider_id = "proxmox://r1/20000";
    vm.created_unix = wall_ms / 1000 - 86'400;  // Proxmox says old; we have not seen it yet
    auto region = sys().spawn(fake_region, calls, std::vector<owned_vm>{vm});
    controller_context ctx;
    ctx.regions["r1"] = region;
    ctx.settings.garbage_collection_interval = 2min;
    ctx.settings.orphan_vm_grace_period = 30s;
    ctx.metrics = metrics;
    ctx.wall_clock_ms = [this] {
      if (clock_throws > 0) {
        --clock_throws;
        throw std::runtime_error("the clock broke");
      }
      return wall_ms;
    };
    return spawn_garbage_collector(sys(), ctx);
  }
};

TEST_F(GarbageCollectorTimer, RunsEveryIntervalOnCollectAndOnTheFirstSyncedSnapshot) {
  auto gc = spawn();
  sched().run();
  EXPECT_EQ(calls->listed, 0);
  sched().advance_time(2min);
  sched().run();
  EXPECT_EQ(calls->listed, 1);
  caf::anon_send(gc, collect_atom::value);
  sched().run();
  EXPECT_EQ(calls->listed, 2);
  auto snap = std::make_shared<cluster_snapshot>();
  snap->synced = true;
  snap->node_claims = std::make_shared<object_map<kube::node_claim>>();
  caf::anon_send(gc, snapshot_ptr(snap));
  sched().run();
  EXPECT_EQ(calls->listed, 3);
  EXPECT_TRUE(calls->deleted.empty()) << "seen 0 s ago: inside the grace period";
  // A later snapshot does not start a pass by itself.
  caf::anon_send(gc, snapshot_ptr(snap));
  sched().run();
  EXPECT_EQ(calls->listed, 3);
  sched().advance_time(2min);
  wall_ms += 31'000;
  sched().run();
  EXPECT_EQ(calls->listed, 4);
  EXPECT_EQ(calls->deleted, std::vector<std::uint32_t>{20000});
  caf::anon_send_exit(gc, caf::exit_reason::user_shutdown);
}

TEST_F(GarbageCollectorTimer, APassThatThrowsIsCountedAndTheNextPassStillRunsAndCollects) {
  auto gc = spawn();
  auto snap = std::make_shared<cluster_snapshot>();
  snap->synced = true;
  snap->node_claims = std::make_shared<object_map<kube::node_claim>>();
  clock_throws = 1;
  caf::anon_send(gc, snapshot_ptr(snap));  // the first synced snapshot starts a pass
  sched().run();
  EXPECT_EQ(calls->listed, 1);
  EXPECT_EQ(metrics->actor_failures.Add({{"actor", "garbage-collection"}}).Value(), 1);
  sched().advance_time(2min);
  sched().run();
  EXPECT_EQ(calls->listed, 2) << "the timer survived the failure and the pass was not stuck";
  sched().advance_time(2min);
  wall_ms += 31'000;
  sched().run();
  EXPECT_EQ(calls->listed, 3);
  EXPECT_EQ(calls->deleted, std::vector<std::uint32_t>{20000}) << "the collector still works";
  caf::anon_send_exit(gc, caf::exit_reason::user_shutdown);
}

}  // namespace
}  // namespace kp::actors
