// The termination actor's retries on CAF's test coordinator (virtual time), with a test actor
// standing in for the region: a VM delete the region fails is tried again on the one-second tick
// once its backoff (1 s, 2 s, 4 s, ... at most 10 s) has passed, never sooner; a region that
// does not answer is given up after ten minutes and asked again. The NodeClaim has no Node and
// its VM is never deleted here, so no Kubernetes write is due (the actor's wall clock is the
// virtual one).
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "actors/termination/termination_actor.hpp"
#include "test/actors/caf_test_fixture.hpp"
#include "test/actors/disruption/snapshot_builder.hpp"
#include "test/actors/fake_region.hpp"

namespace kp::actors {
namespace {

using namespace std::chrono_literals;
using namespace kp::protocol;

struct vm_deletes {
  int asked = 0;
  bool answer = true;  // false: keep the promise, never reply
  std::vector<caf::typed_response_promise<delete_reply>> held;
  delete_request last;
};

region_actor::behavior_type standing_in_region(region_actor::pointer self,
                                               std::shared_ptr<vm_deletes> seen) {
  return test::fake_region_behavior(
      [](launch_atom, const launch_request&) { return launch_reply{}; },
      [self, seen](vm_delete_atom, const delete_request& r) -> caf::result<delete_reply> {
        ++seen->asked;
        seen->last = r;
        if (!seen->answer) {
          seen->held.push_back(self->make_response_promise<delete_reply>());
          return seen->held.back();
        }
        delete_reply reply;
        reply.error = {"proxmox", "500 storage busy"};
        return reply;
      },
      [](list_owned_atom) { return owned_vm_listing{}; },
      [](inventory_atom) { return region_inventory{}; });
}

// NodeClaim nc-n1 (VM region1/100) being deleted, with our finalizer; its Node is gone already.
snapshot_ptr snapshot_with_deleted_claim() {
  disruption::testing::snapshot_builder b;
  b.add_node("n1");
  b.nodes.clear();
  auto& claim = b.claim("nc-n1");
  claim.metadata.finalizers = {"karpenter.sh/termination"};
  claim.metadata.deletion_timestamp = kube::format_rfc3339(b.now);
  return b.build();
}

class TerminationTimer : public kp::test::caf_test {
 protected:
  std::shared_ptr<vm_deletes> region = std::make_shared<vm_deletes>();

  void TearDown() override { region->held.clear(); }

  void start() {
    controller_context ctx;
    ctx.cluster_name = "test-cluster";
    ctx.regions["region1"] = keep(sys().spawn(standing_in_region, region));
    // The wall clock the actor compares with API timestamps follows the virtual one.
    auto* clock = &sys().clock();
    auto start = clock->now();
    ctx.wall_clock_ms = [clock, start] {
      return 1'800'000'000'000 +
             std::chrono::duration_cast<std::chrono::milliseconds>(clock->now() - start).count();
    };
    auto termination = keep(spawn_termination(sys(), ctx));
    caf::anon_send(termination, snapshot_with_deleted_claim());
    sched().run();
  }

  int asked_after(caf::timespan t) {
    advance(t);
    return region->asked;
  }
};

TEST_F(TerminationTimer, AFailedVmDeleteIsRetriedOnTheTickAfterADoublingBackoffCappedAtTenSeconds) {
  start();
  ASSERT_EQ(region->asked, 1) << "a deleted NodeClaim without a Node goes to its VM at once";
  EXPECT_EQ(region->last.vmid, 100u);
  EXPECT_EQ(region->last.nodeclaim, "nc-n1");
  // Tries at 0, 1, 3, 7, 15, 25 and 35 s.
  EXPECT_EQ(asked_after(1s), 2);
  EXPECT_EQ(asked_after(1s), 2);
  EXPECT_EQ(asked_after(1s), 3);
  EXPECT_EQ(asked_after(3s), 3);
  EXPECT_EQ(asked_after(1s), 4);
  EXPECT_EQ(asked_after(7s), 4);
  EXPECT_EQ(asked_after(1s), 5);
  EXPECT_EQ(asked_after(9s), 5);
  EXPECT_EQ(asked_after(1s), 6);
  EXPECT_EQ(asked_after(9s), 6);
  EXPECT_EQ(asked_after(1s), 7) << "the backoff stops growing at 10 s";
}

TEST_F(TerminationTimer, ARegionThatNeverAnswersIsGivenUpAfterTenMinutesAndAskedAgain) {
  region->answer = false;
  start();
  ASSERT_EQ(region->asked, 1);
  EXPECT_EQ(asked_after(10min - 1ms), 1) << "one delete in flight at a time";
  EXPECT_EQ(asked_after(1ms), 1) << "given up now; the retry waits for its backoff";
  EXPECT_EQ(asked_after(1s), 2);
}

}  // namespace
}  // namespace kp::actors
