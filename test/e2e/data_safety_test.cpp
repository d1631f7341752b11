// The product only ever changes its own VMs, treats "unknown" as unknown, and finishes a launch
// a crash interrupted: a foreign VM that took the VMID of our vanished VM survives untouched while
// the pod runs again on a new VM; config reads failing for 10 s after a restart remove nothing;
// a controller killed right after the clone or right after the ISO upload resumes that launch
// after its restart (one VM, the same VMID) and the node joins within 30 s.
#include <boost/json.hpp>

#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

constexpr const char* clone_path = "POST /nodes/{node}/qemu/{vmid}/clone";
constexpr const char* upload_path = "POST /nodes/{node}/storage/{storage}/upload";

class data_safety : public e2e_test {
 protected:
  static lab::lab_options options() {
    auto o = e2e_options();
    o.controller_settings["orphan-vm-grace-period"] = "3s";
    o.controller_settings["garbage-collection-interval"] = "1s";
    return o;
  }

  // Our VMs (not the hand-made one) and the NodeClaims, for "nothing changed".
  static std::string fleet(const cluster_view& v) {
    std::string s;
    for (const auto& [name, c] : v.nodeclaims) {
      s += name + (c.terminating ? "(deleting)" : "") + "=" + c.provider_id + " ";
    }
    for (const auto& vm : v.vms) s += std::to_string(vm.vmid) + ":" + vm.name + " ";
    return s;
  }

  // Events with this reason (any object, any namespace).
  int events(const std::string& reason) {
    auto list = world->list("/api/v1/events");
    if (!list) return 0;
    int n = 0;
    for (const auto& e : *list) {
      const auto* r = e.as_object().if_contains("reason");
      if (r != nullptr && r->is_string() && r->as_string() == reason) ++n;
    }
    return n;
  }

  // Kills the controller while the launch of one pod's VM waits on `slow` (a reply delayed by
  // pve-sim after it did the work), restarts it, and expects that launch to finish on the same
  // VM with its node joined within 30 s of the restart.
  void kill_during_and_resume(const std::string& slow_path_yaml, const std::string& slow_key) {
    KP_E2E_START(options());
    auto first = start_controller();
    ASSERT_TRUE(world
                    ->set_faults("latency:\n  - {path: \"" + slow_path_yaml +
                                 "\", method: POST, ms: 8000}\n")
                    .ok());
    scale("web", 1, "500m", "1Gi");
    // The call was made (its work done in pve-sim) and its reply is still on its way.
    ASSERT_TRUE(wait_for(
        [&](const cluster_view& v) { return !v.vms.empty() && pve_requests(slow_key) >= 1; }, 30s))
        << diagnose();
    world->kill_controller(first);
    auto at_kill = view();
    ASSERT_EQ(at_kill.vms.size(), 1u) << at_kill.text();
    // Found by its VMID: a kill during the clone task leaves the temporary `lock: clone` config,
    // which has no name yet.
    const auto vm = at_kill.vms.front();
    const std::string vm_suffix = "/" + std::to_string(vm.vmid);
    ASSERT_EQ(at_kill.nodes.size(), 0u) << "the launch was not finished at the kill";
    ASSERT_TRUE(world->set_faults("").ok());
    auto restarted = std::chrono::steady_clock::now();
    start_controller();
    ASSERT_TRUE(wait_for(
        [&](const cluster_view& v) {
          for (const auto& [name, node] : v.nodes)
            if (node.provider_id.ends_with(vm_suffix) && node.ready) return true;
          return false;
        },
        30s))
        << "the node of the interrupted launch did not join within 30 s of the restart"
        << diagnose();
    auto joined_after = std::chrono::steady_clock::now() - restarted;
    EXPECT_LT(joined_after, 30s);
    auto v = view();
    ASSERT_EQ(v.vms.size(), 1u) << "a second VM was made: " << v.text();
    EXPECT_EQ(v.vms.front().vmid, vm.vmid) << "the launch did not resume on its VM";
    EXPECT_EQ(pve_requests(clone_path), 1) << "cloned again";
    ASSERT_TRUE(wait_for([](const cluster_view& w) { return w.running() == 1; }, 30s))
        << diagnose();
  }
};

TEST_F(data_safety, aForeignVmReusingTheVmidOfOurVanishedVmSurvivesAndThePodRunsOnANewVm) {
  auto o = options();
  // A node whose VM is gone turns NotReady soon, so the lost NodeClaim is collected in seconds.
  o.kube_sim_args.push_back("--node-monitor-grace");
  o.kube_sim_args.push_back("6");
  KP_E2E_START(o);
  start_controller();
  scale("web", 1, "500m", "1Gi");
  ASSERT_TRUE(wait_for([](const cluster_view& v) { return v.running() == 1; }, 45s)) << diagnose();
  auto before = view();
  ASSERT_EQ(before.vms.size(), 1u) << before.text();
  const auto ours = before.vms.front();

  // Out of band: our node VM is stopped and deleted; an admin makes `precious-db` with its VMID.
  auto id = std::to_string(ours.vmid);
  ASSERT_NO_FATAL_FAILURE(pve_task("POST", ours.node,
                                   "/nodes/" + ours.node + "/qemu/" + id + "/status/stop",
                                   "/nodes/{node}/qemu/{vmid}/status/stop"));
  ASSERT_NO_FATAL_FAILURE(pve_task("DELETE", ours.node,
                                   "/nodes/" + ours.node + "/qemu/" + id + "?purge=1",
                                   "/nodes/{node}/qemu/{vmid}"));
  ASSERT_NO_FATAL_FAILURE(
      pve_create_vm(ours.node, ours.vmid, "precious-db", "the production database", true));
  const auto digest = pve_config_digest(ours.node, ours.vmid);
  ASSERT_NE(digest, "gone");

  // The pod runs again, on a new VM of a new NodeClaim; precious-db is never touched.
  std::string last;
  bool moved = wait_for(
      [&](const cluster_view& v) {
        last = v.text();
        if (pve_config_digest(ours.node, ours.vmid) != digest) return true;  // fails below
        if (v.running() != 1) return false;
        for (const auto& vm : v.vms)
          if (vm.name != "precious-db" && vm.vmid != ours.vmid && v.nodeclaims.count(vm.name))
            return v.nodeclaims.count(ours.name) == 0;
        return false;
      },
      120s);
  EXPECT_EQ(pve_config_digest(ours.node, ours.vmid), digest) << "precious-db was changed";
  ASSERT_TRUE(moved) << last << diagnose();
  auto after = view();
  bool precious = false;
  for (const auto& vm : after.vms) {
    if (vm.vmid == ours.vmid) {
      precious = vm.name == "precious-db" && vm.status == "running";
    }
  }
  EXPECT_TRUE(precious) << "precious-db was stopped or deleted: " << after.text();
  EXPECT_GE(events("ForeignVM"), 1) << "no Warning Event said the VMID holds a foreign VM";
}

TEST_F(data_safety, configReadsFailingForTenSecondsAfterARestartLeaveEveryNodeClaimAndVm) {
  KP_E2E_START(options());
  auto first = start_controller();
  scale("web", 6, "1500m", "3Gi");
  ASSERT_TRUE(wait_for([](const cluster_view& v) { return v.running() == 6; }, 60s)) << diagnose();
  // Settled: every VM belongs to its NodeClaim, and the fleet stays as it is.
  ASSERT_TRUE(wait_for([](const cluster_view& v) { return leaks(v).empty(); }, 20s)) << diagnose();
  const auto before = fleet(view());
  world->kill_controller(first);
  ASSERT_TRUE(world
                  ->set_faults(R"(errors:
  - {path: "/nodes/{node}/qemu/{vmid}/config", method: GET, rate: 1.0, status: 500, message: "injected config read error"}
)")
                  .ok());
  start_controller();
  std::string changed;
  bool any = wait_for(
      [&](const cluster_view& v) {
        changed = fleet(v);
        return changed != before;
      },
      10s);
  EXPECT_FALSE(any) << "while config reads failed:\nbefore: " << before << "\nafter:  " << changed
                    << diagnose();
  ASSERT_TRUE(world->set_faults("").ok());
  any = wait_for(
      [&](const cluster_view& v) {
        changed = fleet(v);
        return changed != before;
      },
      5s);
  EXPECT_FALSE(any) << "once they answered again:\nbefore: " << before << "\nafter:  " << changed
                    << diagnose();
  EXPECT_EQ(view().running(), 6);
}

TEST_F(data_safety, aSigkillRightAfterTheCloneResumesTheLaunchAndTheNodeJoins) {
  kill_during_and_resume("/nodes/{node}/qemu/{vmid}/clone", clone_path);
}

TEST_F(data_safety, aSigkillRightAfterTheIsoUploadResumesTheLaunchAndTheNodeJoins) {
  kill_during_and_resume("/nodes/{node}/storage/{storage}/upload", upload_path);
}

}  // namespace
}  // namespace kp::e2e
