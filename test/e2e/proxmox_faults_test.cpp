// Proxmox faults (API errors, slow and failing tasks, an offline host) delay provisioning but
// never leak a VM or lose a pod: every pod ends Running and every VM belongs to a NodeClaim.
#include "sim/lab/proxmox_calls.hpp"
#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

class proxmox_faults : public e2e_test {
 protected:
  void expect_settles_without_leak(int pods) {
    ASSERT_TRUE(wait_for([&](const cluster_view& v) { return v.running() == pods; }, 60s))
        << diagnose();
    std::string last;
    bool clean = wait_for(
        [&](const cluster_view& v) {
          last = leaks(v);
          return last.empty() && v.vm_names() == v.nodeclaim_names();
        },
        20s);
    EXPECT_TRUE(clean) << last << diagnose();
  }
};

TEST_F(proxmox_faults, apiErrorsAndSlowOrFailingTasksDelayButNeverLeakAVmOrLoseAPod) {
  auto options = e2e_options();
  options.controller_settings["orphan-vm-grace-period"] = "3s";
  options.controller_settings["garbage-collection-interval"] = "1s";
  KP_E2E_START(options);
  ASSERT_TRUE(world
                  ->set_faults(R"(
seed: 7
errors:
  - {path: "/nodes/{node}/qemu/{vmid}/clone", method: POST, rate: 1.0, status: 500, message: "injected clone error", count: 2}
  - {path: "/nodes/{node}/qemu/{vmid}/config", method: POST, rate: 0.3, status: 500, message: "injected config error", count: 2}
failing_tasks:
  - {type: qmstart, rate: 1.0, message: "start failed: injected", count: 1}
  - {type: qmclone, rate: 1.0, message: "clone failed: injected", count: 1}
latency:
  - {path: "*", method: "*", ms: 30}
slow_clone_factor: 3
)")
                  .ok());
  start_controller();
  scale("web", 10, "500m", "1Gi");
  expect_settles_without_leak(10);
  // The faults did fire: the controller met the injected errors.
  auto calls = lab::read_proxmox_calls(*world);
  ASSERT_TRUE(calls.ok());
  EXPECT_GE(calls->errors, 2) << calls->summary();
}

TEST_F(proxmox_faults, anOfflineHostDelaysButNeverLeaksAVmOrLosesAPod) {
  auto options = e2e_options();
  options.controller_settings["orphan-vm-grace-period"] = "3s";
  options.controller_settings["garbage-collection-interval"] = "1s";
  KP_E2E_START(options);
  ASSERT_TRUE(world->set_faults("offline_hosts: [{node: pve2, status: 595}]\n").ok());
  start_controller();
  scale("web", 10, "500m", "1Gi");
  ASSERT_TRUE(wait_for([](const cluster_view& v) { return v.running() == 10; }, 60s)) << diagnose();
  for (const auto& vm : view().vms)
    EXPECT_NE(vm.node, "pve2") << "a VM was placed on the offline host";
  // The host comes back: nothing changes for the running fleet, and nothing leaks.
  ASSERT_TRUE(world->set_faults("").ok());
  scale("web", 14, "500m", "1Gi");
  expect_settles_without_leak(14);
}

}  // namespace
}  // namespace kp::e2e
