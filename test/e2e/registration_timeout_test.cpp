// A VM that never joins is deleted after the registration timeout and replaced. kube-sim starts
// with its CSR signer off, so the first guest waits for a certificate forever; once that VM is
// gone the signer is switched on and the replacement joins.
#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

class registration_timeout : public e2e_test {};

TEST_F(registration_timeout, aVmThatNeverJoinsIsDeletedAfterTheRegistrationTimeoutAndReplaced) {
  auto options = e2e_options();
  options.kube_sim_args.insert(options.kube_sim_args.end(),
                               {"--disable-controllers", "csr-signer"});
  options.controller_settings["registration-timeout"] = "6s";
  KP_E2E_START(options);
  start_controller();
  scale("web", 1, "250m", "256Mi");
  lab::vm_entry first;
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        if (v.vms.empty()) return false;
        first = v.vms.front();
        return true;
      },
      20s))
      << diagnose();
  // Gone from Proxmox and its NodeClaim gone too (the timeout is 6 s; allow for the stop and
  // the destroy tasks).
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        for (const auto& vm : v.vms)
          if (vm.vmid == first.vmid) return false;
        return v.nodeclaims.count(first.name) == 0;
      },
      30s))
      << "VM " << first.vmid << " (" << first.name << ") was not deleted" << diagnose();
  auto on = world->kube().call("POST", "/sim/v1/controllers/csr-signer", R"({"enabled":true})");
  ASSERT_TRUE(on.ok() && on->ok());
  bool replaced = wait_for([](const cluster_view& v) { return v.running() == 1; }, 40s);
  ASSERT_TRUE(replaced) << diagnose();
  auto v = view();
  ASSERT_EQ(v.vms.size(), 1u) << diagnose();
  EXPECT_NE(v.vms.front().vmid, first.vmid);
  EXPECT_EQ(leaks(v), "");
}

}  // namespace
}  // namespace kp::e2e
