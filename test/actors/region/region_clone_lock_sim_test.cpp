// The region actor against pve-sim while a clone is still running: Proxmox then shows the new
// VMID with only `lock: clone` (no name, no mark). A NodeClaim created before the actor started
// waits for such a clone (it may be its own, from before a restart) and adopts it.
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

}  // namespace
}  // namespace kp::actors::region
