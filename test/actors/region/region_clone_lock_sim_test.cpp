// The region actor against pve-sim while a clone is still running: Proxmox then shows the new
// VMID with only `lock: clone` (no name, no mark). A NodeClaim created before the actor started
// waits for such a clone (it may be its own, from before a restart) and adopts it; one created
// after never waits; the wait is bounded and never ends in a second VM.
#include <thread>

#include "test/actors/region/region_sim_fixture.hpp"

namespace kp::actors::region {
namespace {

using namespace kp::actors::region::sim_fixture;
using namespace std::chrono_literals;
using namespace kp::protocol;

std::int64_t now_unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class RegionCloneLock : public RegionActorSim {
 protected:
  void slow_clones(double factor) {
    auto r = sim_call("PUT", "/sim/v1/faults",
                      R"({"slow_clone_factor": )" + std::to_string(factor) + "}");
    ASSERT_TRUE(r.ok() && r->status == 200);
  }
  // The VM Proxmox lists with `lock: clone`, once one shows (polled with a deadline).
  std::optional<proxmox::cluster_resource> locked_clone() {
    auto until = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < until) {
      for (const auto& r : vms()) {
        if (r.lock == "clone") return r;
      }
      std::this_thread::yield();
    }
    return std::nullopt;
  }
  std::size_t vms_named(const std::string& name) {
    std::size_t n = 0;
    for (const auto& r : vms()) n += r.name == name ? 1 : 0;
    return n;
  }
  // A clone started behind the actor's back and left running (another controller, a person).
  std::uint32_t start_foreign_clone(std::uint32_t vmid) {
    proxmox::clone_request c;
    c.node = "pve1";
    c.source_vmid = 9001;
    c.new_vmid = vmid;
    c.name = "someone-else";
    c.description = "made by hand";
    c.full = false;
    auto task = await<proxmox::upid>([&](auto cb) { clients_.front()->clone_vm(c, cb); });
    EXPECT_TRUE(task.ok()) << (task.ok() ? "" : task.error().message);
    return vmid;
  }
  static constexpr const char* clone_calls = "POST /nodes/{node}/qemu/{vmid}/clone";
};

TEST_F(RegionCloneLock, ALaunchWhoseEarlierCloneStillRunsWaitsForItAndAdoptsItWithOneClone) {
  auto a = spawn();
  ASSERT_TRUE(inventory(a).refreshed);
  slow_clones(20);  // 4 s per clone at pve-sim's time scale
  auto created = now_unix_ms() - 1000;
  auto req = request("clone-crash");
  req.created_unix_ms = created;
  caf::anon_send(a, launch_atom::value, req);
  auto cloning = locked_clone();
  ASSERT_TRUE(cloning.has_value()) << "the first actor's clone never showed";
  // The controller dies while Proxmox clones: the VMID shows `lock: clone` and nothing else.
  caf::anon_send_exit(a, caf::exit_reason::kill);
  EXPECT_FALSE(config_of(cloning->node, cloning->vmid).name.has_value());
  auto b = spawn();
  auto reply = launch(b, req);
  ASSERT_TRUE(reply.ok) << reply.error.code << ": " << reply.error.message;
  EXPECT_EQ(reply.vmid, cloning->vmid);
  EXPECT_TRUE(reply.adopted);
  EXPECT_EQ(reply.resumed_at, "upload");
  EXPECT_EQ(vms_named("clone-crash"), 1u);
  EXPECT_EQ(stats()[clone_calls], 1) << "the restarted actor cloned again";
  auto owned_by_claim = 0;
  for (const auto& vm : owned(b)) owned_by_claim += vm.nodeclaim == "clone-crash" ? 1 : 0;
  EXPECT_EQ(owned_by_claim, 1);
}

TEST_F(RegionCloneLock, ANodeClaimCreatedAfterTheRegionStartedDoesNotWaitForAForeignClone) {
  slow_clones(500);  // the foreign clone takes 100 s; ours below run at the normal speed
  auto foreign = start_foreign_clone(30000);
  slow_clones(1);
  auto b = spawn();
  // The running clone is listed as unknown (maybe ours), never as gone or foreign.
  auto listed = listing(b);
  ASSERT_TRUE(listed.fresh) << listed.detail;
  bool unknown = false;
  for (const auto& u : listed.unknown) unknown = unknown || u.vmid == foreign;
  EXPECT_TRUE(unknown);
  auto req = request("after-start");
  req.created_unix_ms = now_unix_ms() + 1000;
  auto reply = launch(b, req);
  ASSERT_TRUE(reply.ok) << reply.error.code << ": " << reply.error.message;
  EXPECT_NE(reply.vmid, foreign);
  EXPECT_EQ(config_of("pve1", foreign).lock.value_or(""), "clone")
      << "the launch waited for the foreign clone";
}

TEST_F(RegionCloneLock, ALaunchThatMayPredateTheRegionFailsRatherThanPlaceWhileAnUnknownCloneRuns) {
  slow_clones(500);
  auto foreign = start_foreign_clone(30000);
  auto s = settings();
  s.clone_wait.timeout = 1s;  // the bound of the wait
  auto b = spawn_with(s);
  auto before = stats()[clone_calls];
  auto req = request("before-start");
  req.created_unix_ms = 0;  // unknown: it may pre-date the actor
  auto reply = launch(b, req);
  EXPECT_FALSE(reply.ok);
  EXPECT_EQ(reply.error.code, "proxmox");
  EXPECT_NE(reply.error.message.find(std::to_string(foreign)), std::string::npos)
      << reply.error.message;
  EXPECT_EQ(stats()[clone_calls], before) << "a VM was placed while the unknown clone ran";
  EXPECT_EQ(vms_named("before-start"), 0u);
}

}  // namespace
}  // namespace kp::actors::region
