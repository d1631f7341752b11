// The template builder's clock on CAF's test coordinator (virtual time), with test actors
// standing in for the regions: every region is read again each inventory interval, never
// before; a pass waits for a region that does not answer only until its deadline, no second
// pass overlaps it, and the next pass runs as soon as it ends.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "actors/template_builder/template_builder.hpp"
#include "test/actors/caf_test_fixture.hpp"
#include "test/actors/fake_region.hpp"

namespace kp::actors::template_builder {
namespace {

using namespace std::chrono_literals;
using namespace kp::protocol;

struct observations {
  int asked = 0;
  bool answer = true;  // false: keep the promise, never reply (a region stuck on Proxmox)
  std::vector<caf::typed_response_promise<template_observation>> held;
};

region_actor::behavior_type standing_in_region(region_actor::pointer self, std::string name,
                                               std::shared_ptr<observations> seen) {
  return test::fake_region_behavior(
      [](launch_atom, const launch_request&) { return launch_reply{}; },
      [](vm_delete_atom, const delete_request&) { return delete_reply{}; },
      [](list_owned_atom) { return owned_vm_listing{}; },
      [](inventory_atom) { return region_inventory{}; },
      [self, name, seen](template_atom,
                         const template_observe_request&) -> caf::result<template_observation> {
        ++seen->asked;
        if (!seen->answer) {
          seen->held.push_back(self->make_response_promise<template_observation>());
          return seen->held.back();
        }
        template_observation o;
        o.region = name;
        o.ok = true;
        return o;
      });
}

class TemplateBuilderTimer : public kp::test::caf_test {
 protected:
  std::shared_ptr<observations> r1 = std::make_shared<observations>();
  std::shared_ptr<observations> r2 = std::make_shared<observations>();

  void TearDown() override {
    r1->held.clear();
    r2->held.clear();
  }

  // Inventory interval 30 s; a region has 2 × 10 s + 60 s = 80 s to answer an observation.
  snapshot_listener spawn() {
    controller_context ctx;
    ctx.cluster_name = "test-cluster";
    ctx.regions["r1"] = keep(sys().spawn(standing_in_region, std::string("r1"), r1));
    ctx.regions["r2"] = keep(sys().spawn(standing_in_region, std::string("r2"), r2));
    ctx.settings.proxmox_inventory_interval = 30s;
    ctx.settings.proxmox_config_timeout = 10s;
    auto builder = keep(spawn_template_builder(sys(), ctx));
    // A synced cluster without ProxmoxTemplates: every pass still reads every region (orphans).
    auto snap = std::make_shared<cluster_snapshot>();
    snap->synced = true;
    snap->templates = std::make_shared<object_map<kube::proxmox_template>>();
    caf::anon_send(builder, snapshot_ptr(snap));
    sched().run();
    return builder;
  }
};

TEST_F(TemplateBuilderTimer, EveryRegionIsReadAgainEachInventoryIntervalAndNeverBefore) {
  spawn();
  EXPECT_EQ(r1->asked, 1) << "the first synced snapshot starts a pass";
  EXPECT_EQ(r2->asked, 1);
  advance(30s - 1ms);
  EXPECT_EQ(r1->asked, 1);
  EXPECT_EQ(r2->asked, 1);
  advance(1ms);
  EXPECT_EQ(r1->asked, 2);
  EXPECT_EQ(r2->asked, 2);
  advance(30s);
  EXPECT_EQ(r1->asked, 3);
  EXPECT_EQ(r2->asked, 3);
}

TEST_F(TemplateBuilderTimer, ARegionThatNeverAnswersHoldsThePassOnlyUntilItsDeadline) {
  r1->answer = false;
  spawn();
  EXPECT_EQ(r1->asked, 1);
  EXPECT_EQ(r2->asked, 1);
  // Ticks at 30 s and 60 s find the pass still waiting for r1: no second pass overlaps it.
  advance(60s);
  EXPECT_EQ(r1->asked, 1);
  EXPECT_EQ(r2->asked, 1);
  advance(20s - 1ms);
  EXPECT_EQ(r2->asked, 1) << "r1 still has 1 ms to answer";
  // At 80 s r1's observation times out; the pass ends and the ticks it missed run one now.
  advance(1ms);
  EXPECT_EQ(r1->asked, 2);
  EXPECT_EQ(r2->asked, 2);
}

}  // namespace
}  // namespace kp::actors::template_builder
