// The NodeClaim actor's retries on CAF's test coordinator (virtual time), with a test actor
// standing in for its region: a cloud-init ISO release the region fails is retried after a
// backoff that doubles (1 s, 2 s, ...), never sooner, and stops once the region succeeds.
// The claim is Launched, Registered and Initialized, so no Kubernetes write is due.
#include <gtest/gtest.h>

#include <memory>

#include "actors/nodeclaim/launch_plan.hpp"
#include "actors/nodeclaim/nodeclaim_actor.hpp"
#include "test/actors/caf_test_fixture.hpp"
#include "test/actors/disruption/snapshot_builder.hpp"
#include "test/actors/fake_region.hpp"

namespace kp::actors::nodeclaim {
namespace {

using namespace std::chrono_literals;
using namespace kp::protocol;

struct iso_releases {
  int asked = 0;
  int fail_first = 0;  // this many releases answer a Proxmox error
  std::uint32_t vmid = 0;
  std::string nodeclaim;
};

region_actor::behavior_type standing_in_region(std::shared_ptr<iso_releases> seen) {
  return test::fake_region_behavior(
      [](launch_atom, const launch_request&) { return launch_reply{}; },
      [](vm_delete_atom, const delete_request&) { return delete_reply{}; },
      [](list_owned_atom) { return owned_vm_listing{}; },
      [](inventory_atom) { return region_inventory{}; },
      [](template_atom, const template_observe_request&) { return template_observation{}; },
      [seen](release_iso_atom, const release_iso_request& r) {
        ++seen->asked;
        seen->vmid = r.vmid;
        seen->nodeclaim = r.nodeclaim;
        release_iso_reply reply;
        reply.ok = seen->asked > seen->fail_first;
        if (!reply.ok) reply.error = {"proxmox", "500 storage busy"};
        return reply;
      });
}

// A Ready Node with its Launched, Registered and Initialized NodeClaim nc-n1, on VM
// region1/100, carrying our finalizer.
snapshot_ptr snapshot_with_initialized_claim() {
  disruption::testing::snapshot_builder b;
  b.add_node("n1");
  b.claim("nc-n1").metadata.finalizers = {termination_finalizer};
  return b.build();
}

class NodeClaimTimer : public kp::test::caf_test {
 protected:
  std::shared_ptr<iso_releases> region = std::make_shared<iso_releases>();

  void start() {
    controller_context ctx;
    ctx.cluster_name = "test-cluster";
    ctx.regions["region1"] = keep(sys().spawn(standing_in_region, region));
    auto claim = keep(spawn_nodeclaim_actor(sys(), ctx, "nc-n1"));
    caf::anon_send(claim, snapshot_with_initialized_claim());
    sched().run();
  }

  int asked_after(caf::timespan t) {
    advance(t);
    return region->asked;
  }
};

TEST_F(NodeClaimTimer, AFailedIsoReleaseIsRetriedAfterADoublingBackoffUntilTheRegionSucceeds) {
  region->fail_first = 2;
  start();
  EXPECT_EQ(region->asked, 1) << "an initialized claim releases its cloud-init ISO at once";
  EXPECT_EQ(region->vmid, 100u);
  EXPECT_EQ(region->nodeclaim, "nc-n1");
  EXPECT_EQ(asked_after(1s - 1ms), 1);
  EXPECT_EQ(asked_after(1ms), 2) << "first retry after 1 s";
  EXPECT_EQ(asked_after(2s - 1ms), 2);
  EXPECT_EQ(asked_after(1ms), 3) << "second retry 2 s later";
  EXPECT_EQ(asked_after(10min), 3) << "released: never asked again";
}

TEST_F(NodeClaimTimer, AnIsoReleaseThatSucceedsAtOnceIsNeverRetried) {
  start();
  EXPECT_EQ(region->asked, 1);
  EXPECT_EQ(asked_after(10min), 1);
}

}  // namespace
}  // namespace kp::actors::nodeclaim
