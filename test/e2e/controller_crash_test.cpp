// A controller killed with SIGKILL in the middle of a burst and restarted leaves no orphan and no
// duplicate VM: after the restart every pod runs, and every VM the controllers made belongs to
// exactly one live NodeClaim of its name.
#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

class controller_crash : public e2e_test {};

TEST_F(controller_crash, aSigkillMidBurstAndARestartLeaveNoOrphanAndNoDuplicateVm) {
  auto options = e2e_options();
  options.controller_settings["orphan-vm-grace-period"] = "3s";
  options.controller_settings["garbage-collection-interval"] = "1s";
  KP_E2E_START(options);
  // Slow clones keep the burst in flight long enough to kill the controller in its middle.
  ASSERT_TRUE(world->set_faults("slow_clone_factor: 8\n").ok());
  auto first = start_controller();
  scale("burst", 20, "500m", "1Gi");
  // Mid-burst: at least one VM cloned, not every pod running yet.
  ASSERT_TRUE(
      wait_for([](const cluster_view& v) { return !v.vms.empty() && v.running() < 20; }, 30s))
      << diagnose();
  world->kill_controller(first);
  auto at_kill = view();
  ASSERT_TRUE(world->set_faults("").ok());
  start_controller();
  ASSERT_TRUE(wait_for([](const cluster_view& v) { return v.running() == 20; }, 60s)) << diagnose();
  // The garbage collector has had its grace period; the fleet settles with no leak.
  std::string last;
  bool clean = wait_for(
      [&](const cluster_view& v) {
        last = leaks(v);
        return last.empty() && v.vm_names() == v.nodeclaim_names();
      },
      20s);
  EXPECT_TRUE(clean) << last << "\nat the kill:\n" << at_kill.text() << diagnose();
}

}  // namespace
}  // namespace kp::e2e
